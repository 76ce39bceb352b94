"""The engine: one Decoder owns the round loop (decoder.py); chain and tree rounds are its
strategies (chain.py, tree.py); prompts are encoded in prompt.py."""
from specdec.engine.decoder import Decoder, autoregressive, generate, rounds
from specdec.engine.prompt import Prompt, encode_prompt, stop_ids

__all__ = ["Decoder", "Prompt", "autoregressive", "encode_prompt", "generate", "rounds", "stop_ids"]
