"""Drafts for SmolLM2-135M-Instruct, trained on the target's own answers and distributions;
the commands, in order, are in the README's "Reproducing the models" section."""
