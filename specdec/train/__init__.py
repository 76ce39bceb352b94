"""Reproducing the embedded models (never run by tests or CI).

    stdlib/    the tiny family trained here on the interpreter's sources: python -m specdec.train.stdlib all
    smollm2/   drafts for SmolLM2-135M-Instruct: instructions, the target's answers (selfgen),
               distillation data (relabel, features), draft-2l (draft_2l), the feature draft
               (feature_draft, gpu_feature on a lent GPU), and its model card (evaluate)
    common.py  what both share: logging, the learning-rate schedule
"""
