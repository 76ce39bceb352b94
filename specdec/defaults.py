"""The one table of defaults: every range and list the app and the CLI offer, and each default
more than one layer uses, written once.

Settings (settings.py) builds the sidebar's widgets and the CLI's options from its fields, which
read their spans and defaults here; the pages, the lesson sweeps and `python -m specdec bench`
read the rest. Kept and shipped results are keyed by what they measured (their lengths, k,
temperatures, repeats, sizes), so a change here measures anew. Nothing here imports anything:
every layer may read it.
"""
from __future__ import annotations

from dataclasses import dataclass

# k, the draft length
K_MAX = 64                       # the longest draft a setting may ask for; the heuristic policy never grows past it
K_OFFERED = (1, 12)              # the k the app offers (lowest, highest): the sidebar's slider, the theory
                                 # sliders and curves, "Compare with k =", the tour's best k
K_CHOICES = tuple(range(K_OFFERED[0], K_OFFERED[1] + 1))   # the same, every k listed
K_SWEEP = tuple(range(1, 9))     # When it is fast: the k the sweep measures (and the curves drawn beside it)

# temperature
TEMPERATURE = 0.7                # Settings' and Sampling's default (0 = greedy)
TEMPERATURE_SPAN = (0.0, 2.0, 0.05)                 # the sidebar's slider: low, high, step
TEMPERATURE_SWEEP = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)  # When it is fast: the temperature sweep
TEMPERATURE_COMPARE = (0.0, 0.3, 0.7, 1.0, 1.2, 1.5)  # many prompts: "Compare with T ="

# the confidence policy (drafters/policies.py): stop drafting after a token q gives less than this
CONFIDENCE = 0.3

# timing
REPEATS = 3                      # timed repeats of every lesson sweep (k, drafts, drafters, where, server)
SIZES = (1, 2, 4, 8, 16)         # In a server: the batch sizes swept
DRAFTERS_PROMPTS = 24            # Drafters compared's prompts, one of each kind in turn: 3 of each of 8 kinds
                                 # (with one or two a kind, sampled texts of other lengths decided a winner)


@dataclass(frozen=True)
class Lengths:
    """New tokens per prompt of each lesson's runs (the sidebar's and `run`'s own length is
    Settings.max_new_tokens)."""
    speed: int = 48        # When it is fast: the k sweep, the draft sizes, the temperatures
    drafters: int = 32     # Drafters compared
    where: int = 32        # Where it works
    server: int = 48       # In a server: every request (the answer box's length: batch size 1 serves its runs)
    kv_probe: int = 8      # In a server: the short run whose KV caches are weighed
    trees: int = 32        # Chain or tree?
    tour_kinds: int = 24   # the tour: two kinds of text, one prompt each
    tour_batch: int = 16   # the tour: requests served together, then one by one
    tour_race: int = 32    # the tour: the closing race
    bench: int = 128       # python -m specdec bench --max-new-tokens


LENGTHS = Lengths()


@dataclass(frozen=True)
class BenchDefaults:
    """`python -m specdec bench` without options."""
    k: tuple[int, ...] = (1, 2, 4, 8)
    temperatures: tuple[float, ...] = (0.0, 1.0)
    repeats: int = REPEATS
    limit: int = 10                # prompts at most


BENCH = BenchDefaults()
