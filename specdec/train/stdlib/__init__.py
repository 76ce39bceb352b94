"""The stdlib/* family: a BPE tokenizer and tiny Llamas trained on the interpreter's own sources
(`python -m specdec.train.stdlib all`), evaluated and described in assets/models/README.md."""
