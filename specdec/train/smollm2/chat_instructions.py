"""A second, wider set of training instructions, closer to how people write to a chat model.

The first set (`instructions.py`) reads the interpreter's documentation as its passages, so
the drafts met few everyday passages, short requests or multi-sentence translations. This
set adds them: general-knowledge topics, passages written by the target itself (its earlier
answers to "explain" / "describe" instructions, decoded from the committed token shards),
questions about a passage, refactors that keep behaviour, percentages and unit problems,
short formats (a four-line poem, a 50-word story). It shares no text with the held-out chat
prompts (`tests/test_smollm2_data.py` checks both sets).
"""
from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from specdec.train.smollm2 import instructions as first

TOPICS = (
    "honey bees", "volcanoes", "the Roman Empire", "the printing press", "coral reefs", "the moon landing",
    "electric cars", "rainforests", "the human heart", "earthquakes", "the Silk Road", "penguins",
    "the Great Wall of China", "vaccines", "tides", "the steam engine", "chess", "the Olympic Games",
    "bread baking", "recycling", "the telephone", "deserts", "whales", "the Renaissance", "glaciers",
    "bicycles", "coffee farming", "the immune system", "satellites", "ancient Egypt", "jazz music",
    "the periodic table", "bridges", "wolves", "the stock market", "paper money", "lightning",
    "the Amazon river", "sleep", "solar panels", "the French Revolution", "octopuses", "maps",
    "the Industrial Revolution", "rice farming", "wind turbines", "the Internet's history", "owls",
    "composting", "the Pyramids", "ocean currents", "tea ceremonies", "robots in factories", "trees",
    "the Vikings", "public libraries", "hurricanes", "the violin", "mushrooms", "airplanes", "salt",
    "the Moon's phases", "migrating birds", "chocolate", "the Sahara", "submarines", "clocks",
    "the Titanic", "elephants", "wildfires", "the metric system", "hot air balloons", "dinosaurs",
)
GENERAL = (
    "Write a short paragraph about {t}.", "Tell me three interesting facts about {t}.",
    "Why are {t} important? Answer in a few sentences.", "Give a brief history of {t}.",
    "What are the pros and cons of {t}?", "Explain {t} to a ten-year-old.",
    "Write a quiz with three questions about {t}, with answers.",
)
MORE_CODE = (
    "Write {lang} code that {task}.", "Write a {lang} function that {task}. Add a short example.",
    "Show me how to {task2} in {lang}.", "Write a {lang} class that {cls}.",
)
TASKS2 = ("read a JSON file", "sort a dictionary by value", "make an HTTP request", "reverse a string",
          "count the characters in a string", "find duplicates in a list", "measure how long code takes",
          "read a CSV file", "create a directory if it does not exist", "format a date",
          "generate a random password", "swap two variables", "remove an item from a list",
          "write to a text file", "convert a list to a string", "split a string on commas")
CLASSES = ("represents a bank account with deposit and withdraw", "stores a to-do list",
           "models a rectangle with area and perimeter", "keeps track of a game score",
           "represents a library book that can be borrowed and returned", "counts word frequencies",
           "implements a simple linked list", "models a temperature sensor with a history")
REFACTORS = (
    "Refactor this code so it is easier to read. Keep the behaviour the same.",
    "Simplify this function without changing what it returns.",
    "Split this function into two smaller functions.", "Rewrite this code using a list comprehension.",
    "Make this code more efficient and explain the change.", "Translate this Python code into JavaScript.",
    "Review this code and suggest two improvements.",
)
SHAPES = (
    "List {n} {thing}s as CSV with columns {cols}.", "Give {n} {thing}s as a JSON list with keys {cols}.",
    "Write {n} {thing}s as a Markdown table with the columns {cols}.",
    "Describe a {thing} as a YAML document with the keys {cols}.",
    "Return only a JSON object with the keys {cols} for a {thing}.",
)
COLS = ("name,price", "name,country,year", "title,author,year", "name,colour,size", "id,name,score",
        "city,population", "name,age,hobby", "item,quantity,unit", "name,type,rating", "product,stock")
QUESTIONS = (
    "What is the passage mainly about?", "Name two facts from the passage.",
    "According to the passage, what is the most important point?",
    "Which sentence of the passage gives the main reason, and why?",
    "Answer in one sentence: what does the passage explain?",
    "Does the passage mention any numbers or dates? List them.",
)
SUMMARIES = ("Summarise in one sentence:", "Summarise this text in at most thirty words.",
             "Give a two-sentence summary of the text below.", "Summarise the following for a child.",
             "Write a headline for this text.", "Shorten this text to three bullet points.")
FORMS = ("A four-line poem about {s}.", "A 50-word story about {s}.", "Write a funny dialogue about {s}.",
         "Write a short song chorus about {s}.", "Write a diary entry about {s}.",
         "Write a riddle about {s} and give the answer.", "Describe {s} in five sentences.")
PHRASES = ("Good morning, how did you sleep?", "The library closes at six in the evening.",
           "Could you help me carry these boxes?", "Our flight was delayed by two hours.",
           "I have lived in this city for ten years.", "The soup needs a little more salt.",
           "Turn left at the second traffic light.", "She plays the piano every Sunday.",
           "The museum is free on the first Monday of the month.", "Thank you for the lovely dinner.",
           "It might rain tomorrow, so bring a coat.", "He is learning to cook Italian food.")


def answer_passages(folder: Path, tokenizer, lo: int = 200, hi: int = 900) -> list[str]:
    """The target's own explanatory answers (committed token shards), as passages."""
    out: list[str] = []
    for path in sorted(folder.glob("shard_*.tokens.npz")):
        d = np.load(path)
        offsets = np.concatenate([[0], np.cumsum(d["answer_lens"])])
        for i in range(len(d["answer_lens"])):
            text = tokenizer.decode(d["answer_ids"][offsets[i]:offsets[i + 1]].astype(np.int64),
                                    skip_special_tokens=True)
            text = " ".join(text.split())
            words = text.split()
            varied = len(set(words)) >= 0.55 * len(words)      # not a sampled answer stuck in a loop
            if lo <= len(text) <= hi and "```" not in text and varied:
                out.append(text)
    return out


def arithmetic(rng: random.Random) -> str:
    a, b, c = rng.randint(2, 60), rng.randint(2, 30), rng.choice((10, 20, 25, 30, 40, 50, 75))
    return rng.choice((
        f"What is {c}% of {a * 4}?", f"Convert {a} kilometres to metres.",
        f"A film starts at {b % 12 + 1}:15 and lasts {a + 60} minutes. When does it end?",
        f"A jacket costs {a * 3} dollars and is {c}% off. What is the new price?",
        f"If {b} workers build a wall in {c} days, how long would {b * 2} workers take?",
        f"What is {a}/{b} as a decimal, rounded to two places?",
        f"Sara reads {b} pages a day. How many days does a {a * b} page book take her?",
        f"A car uses {b} litres of fuel per 100 km. How much for {a * 10} km?",
    ))


def instruction(rng: random.Random, code: list[str], texts: list[str]) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        lang = rng.choice(first.LANGUAGES)
        return rng.choice(MORE_CODE).format(lang=lang, task=rng.choice(first.CODE_TASKS),
                                            task2=rng.choice(TASKS2), cls=rng.choice(CLASSES))
    if kind == 1:
        return f"{rng.choice(REFACTORS)}\n\n```python\n{rng.choice(code)}\n```"
    if kind == 2:
        return rng.choice(SHAPES).format(n=rng.randint(3, 6), thing=rng.choice(first.THINGS),
                                         cols=rng.choice(COLS))
    if kind == 3:
        return f"{rng.choice(SUMMARIES)}\n\n{rng.choice(texts)}"
    if kind == 4:
        return f"Read the passage and answer the question.\n\n{rng.choice(texts)}\n\n{rng.choice(QUESTIONS)}"
    if kind == 5:
        return arithmetic(rng)
    if kind == 6:
        return rng.choice(FORMS).format(s=rng.choice(first.SUBJECTS + TOPICS))
    if kind == 7:
        sentences = " ".join(rng.sample(PHRASES + first.SENTENCES, rng.randint(1, 3)))
        return f"Translate into {rng.choice(first.TARGET_LANGS)}:\n\n{sentences}"
    return rng.choice(GENERAL).format(t=rng.choice(TOPICS))


def build(n: int, texts: list[str], seed: int = 1) -> list[str]:
    """n distinct instructions, deterministic for (n, texts, seed)."""
    code = first.stdlib_functions()
    return first.distinct(n, lambda rng: instruction(rng, code, texts), seed)
