"""Beyond tokens: the cheap-draft / expensive-check pattern outside decoding (issue 41).

A cheap first stage (BM25, sentence embeddings) proposes a pool of passages of Python's own
documentation, or of tools for an agent's request; the lab's target model, run through the
engine's backend, judges each candidate; a confidence gate may skip the judge. Plain functions
over plain records (record.py); `python -m specdec.beyond cascade` measures and prints the table.
"""
