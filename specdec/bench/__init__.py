"""Measuring speed: step and pass costs (measure.py), transformers' own generate() and its
counterpart of each drafter (hf_baseline.py), and `python -m specdec bench` (runner.py)."""
