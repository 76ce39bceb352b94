"""The rules of speculative decoding as pure tensor math: processed distributions and sampling
(sampling.py), the chain acceptance rule, residual and bonus (chain.py), the tree's shape and
attention mask (draft_tree.py) and its per-node rules (tree.py). No models, no caches."""
