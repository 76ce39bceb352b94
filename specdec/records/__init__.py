"""Records of measurements: where and how each was taken (provenance.py), one name and one
definition per measured quantity (vocabulary.py), and the one JSON form every measurement
record is written and read in (codec.py: the bench's files, the shipped results under assets/
and the app's kept results)."""
