"""Training instructions for the SmolLM2 drafts: templates x subjects, all offline.

The drafts learn from the target's own answers to these (DistillSpec: on-policy
distillation), so the instructions cover the kinds the app measures: write code,
edit given code, structured output, summarise / answer from a passage, arithmetic,
creative writing, translation and plain explanation. Passages come from the
interpreter's own documentation (`pydoc_data.topics`) and code from the standard
library. The held-out chat prompts (`assets/prompts_chat.json`) are written by hand
and share no template with these; `tests/test_smollm2_data.py` checks the overlap.
"""
from __future__ import annotations

import ast
import random
import sysconfig
from pathlib import Path

CODE_TASKS = (
    "checks whether a string is a palindrome", "merges two sorted lists", "counts the vowels in a word",
    "returns the n-th Fibonacci number", "removes duplicates from a list while keeping order",
    "reverses the words in a sentence", "finds the largest number in a list", "flattens a nested list",
    "converts Celsius to Fahrenheit", "checks whether a number is prime", "computes the average of a list",
    "counts how often each word appears in a text", "returns the second largest element of a list",
    "capitalises the first letter of every word", "reads a text file and returns its lines",
    "validates an email address with a regular expression", "computes the greatest common divisor",
    "sorts a list of dictionaries by a key", "groups a list of words by their first letter",
    "returns all even numbers from a list", "checks whether two strings are anagrams",
    "computes the sum of the digits of an integer", "converts a binary string to an integer",
    "implements binary search", "chunks a list into pieces of size n", "transposes a matrix",
    "finds the longest word in a sentence", "rotates a list by k positions", "parses a date string",
    "implements a simple stack class", "implements a queue with two stacks", "computes a running total",
    "checks whether brackets in a string are balanced", "returns the intersection of two lists",
    "generates all subsets of a set", "computes the power set size", "counts lines in a file",
    "removes whitespace from both ends of every string in a list", "computes compound interest",
    "converts a dictionary to a list of tuples", "finds the mode of a list", "computes the median",
)
LANGUAGES = ("Python", "Python", "Python", "JavaScript", "Go", "Rust", "C", "Java", "Bash", "SQL")
EDITS = (
    "Add type hints to this function.", "Add a docstring to this function.",
    "Rename the variables in this code so their names are clearer.",
    "Rewrite this code so it is shorter.", "Add error handling to this code.",
    "Explain what this code does, line by line.", "Write a unit test for this function.",
    "Find a possible bug in this code and fix it.", "Add comments to this code.",
    "Convert this function into a method of a class.",
)
STRUCTURED = (
    "Return a JSON object describing a fictional {thing} with the fields name, year and {field}.",
    "Write a YAML configuration file for a {service} with a host, a port and a log level.",
    "Make a CSV table with the columns name, {field} and price for five kinds of {thing}.",
    "Create a Markdown table that compares {a} and {b} on three features.",
    "List five {thing}s as a JSON array of objects with the keys name and {field}.",
    "Give me a numbered list of steps to set up a {service}.",
)
THINGS = ("book", "car", "laptop", "city", "planet", "bicycle", "restaurant", "movie", "phone", "fruit",
          "bird", "camera", "song", "mountain", "river", "coffee", "tea", "game", "chair", "guitar")
FIELDS = ("colour", "rating", "country", "weight", "category", "author", "size", "owner")
SERVICES = ("web server", "database", "cache", "message queue", "mail server", "file server",
            "build server", "chat bot", "logging service", "reverse proxy")
PAIRS = (("Python", "JavaScript"), ("cats", "dogs"), ("tea", "coffee"), ("trains", "planes"),
         ("SQL", "NoSQL"), ("summer", "winter"), ("books", "films"), ("Linux", "Windows"),
         ("TCP", "UDP"), ("lists", "tuples"), ("solar power", "wind power"), ("bikes", "cars"))
PASSAGE_ASKS = (
    "Summarise the following text in two sentences.", "Summarise this passage in one sentence.",
    "What is the main point of the following text?", "List three facts stated in this passage.",
    "According to the passage below, what does the described feature do?",
    "Explain the following documentation to a beginner.", "Write a short title for this passage.",
)
CREATIVE = (
    "Write a short poem about {s}.", "Write the opening paragraph of a story about {s}.",
    "Describe {s} in vivid detail.", "Write a haiku about {s}.", "Write a short dialogue about {s}.",
    "Invent a fairy tale about {s}.", "Write a limerick about {s}.",
)
SUBJECTS = ("the sea at night", "a lost robot", "an old lighthouse", "autumn leaves", "a city in the rain",
            "a brave mouse", "the first snow", "a forgotten library", "a dragon who loves tea",
            "a train journey", "a quiet forest", "the moon", "a clockmaker", "a garden in spring",
            "a detective cat", "a desert storm", "a friendly ghost", "the last day of school")
SENTENCES = ("The weather is nice today.", "Where is the train station?", "I would like a cup of tea.",
             "The meeting starts at nine o'clock.", "My brother lives in a small town.",
             "Please close the window.", "This book is very interesting.", "We are going to the beach.",
             "How much does this cost?", "The children are playing in the park.",
             "I forgot my umbrella at home.", "Dinner will be ready soon.")
TARGET_LANGS = ("French", "Spanish", "German", "Italian", "Portuguese", "Korean")
CONCEPTS = ("recursion", "a hash table", "photosynthesis", "gravity", "inflation", "a neural network",
            "the water cycle", "an operating system", "compound interest", "a compiler", "DNA",
            "a black hole", "version control", "an API", "encryption", "democracy", "a virus",
            "the internet", "a database index", "climate change", "machine learning", "a prime number")


def stdlib_functions(limit: int = 400, max_lines: int = 14) -> list[str]:
    """Short top-level functions from the standard library's sources."""
    root = Path(sysconfig.get_paths()["stdlib"])
    out: list[str] = []
    for path in sorted(root.glob("*.py")):
        try:
            source = path.read_text(encoding="utf-8")
            tree = ast.parse(source)
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and 3 <= node.end_lineno - node.lineno < max_lines:
                out.append(ast.get_source_segment(source, node))
        if len(out) >= limit:
            break
    return out[:limit]


def passages(limit: int = 300, max_chars: int = 900) -> list[str]:
    """Paragraphs of the interpreter's own reference documentation."""
    from pydoc_data.topics import topics
    out = []
    for name in sorted(topics):
        for para in topics[name].split("\n\n"):
            text = " ".join(para.split())
            if 200 <= len(text) <= max_chars and not text.startswith(("*", ">>>", "|")):
                out.append(text)
    return out[:limit]


def arithmetic(rng: random.Random) -> str:
    a, b, c = rng.randint(2, 40), rng.randint(2, 25), rng.randint(2, 9)
    return rng.choice((
        f"A shop sells pencils for {c} dollars each. Anna buys {a} pencils and pays with a {a * c + b} "
        "dollar note. How much change does she get?",
        f"A train travels {a * 10} kilometres in {c} hours. What is its average speed?",
        f"Tom has {a} apples. He gives {b} to friends and then buys {c} more. How many does he have?",
        f"A class has {a} students. Each needs {c} notebooks. How many notebooks are needed?",
        f"What is {a} multiplied by {b}, plus {c}? Explain each step.",
        f"A recipe needs {c} eggs for {b} people. How many eggs are needed for {b * a} people?",
    ))


def instruction(rng: random.Random, code: list[str], texts: list[str]) -> str:
    kind = rng.randrange(9)
    if kind == 0:
        return f"Write a {rng.choice(LANGUAGES)} function that {rng.choice(CODE_TASKS)}."
    if kind == 1:
        return f"{rng.choice(EDITS)}\n\n```python\n{rng.choice(code)}\n```"
    if kind == 2:
        a, b = rng.choice(PAIRS)
        return rng.choice(STRUCTURED).format(thing=rng.choice(THINGS), field=rng.choice(FIELDS),
                                             service=rng.choice(SERVICES), a=a, b=b)
    if kind in (3, 4):
        return f"{rng.choice(PASSAGE_ASKS)}\n\n{rng.choice(texts)}"
    if kind == 5:
        return arithmetic(rng)
    if kind == 6:
        return rng.choice(CREATIVE).format(s=rng.choice(SUBJECTS))
    if kind == 7:
        return f"Translate into {rng.choice(TARGET_LANGS)}: {rng.choice(SENTENCES)}"
    how = rng.choice(("simply", "to a child", "in three sentences", "with an example"))
    return f"Explain {rng.choice(CONCEPTS)} {how}."


def distinct(n: int, make, seed: int) -> list[str]:
    """n distinct results of make(rng), in order of first appearance; deterministic for seed."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    while len(seen) < n:
        seen.setdefault(make(rng), None)
    return list(seen)


def build(n: int, seed: int = 0) -> list[str]:
    """n distinct instructions, deterministic for (n, seed); any prefix mixes all kinds."""
    code, texts = stdlib_functions(), passages()
    return distinct(n, lambda rng: instruction(rng, code, texts), seed)
