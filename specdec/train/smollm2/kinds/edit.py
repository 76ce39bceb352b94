"""Edits of given code: fix a bug, refactor, rename, add types or checks.
One kind of the chat-kind training set (kind_instructions.py)."""
from __future__ import annotations

import random

NAMES = ("calc", "proc", "do_it", "handle", "run", "fn", "work", "go", "compute", "helper")
SHORT_BODIES = (
    "def {f}(p, q):\n    r = p + q\n    return r * {k}",
    "def {f}(s):\n    t = s.strip()\n    return t[:{k}]",
    "def {f}(l):\n    m = 0\n    for x in l:\n        if x > m:\n            m = x\n    return m",
    "def {f}(a, b, c):\n    d = a * b\n    e = d - c\n    return e / {k}",
    "def {f}(w):\n    n = 0\n    for ch in w:\n        if ch in 'aeiou':\n            n += 1\n    return n",
    "def {f}(v, lo, hi):\n    if v < lo:\n        return lo\n    if v > hi:\n        return hi\n    return v",
    "def {f}(d, k):\n    if k in d:\n        return d[k]\n    return {k}",
    "def {f}(xs):\n    out = {{}}\n    for x in xs:\n        out[x] = out.get(x, 0) + 1\n    return out",
)
LOOPS = (
    ("result = []\nfor {v} in {src}:\n    if {v} {op} {k}:\n        result.append({v} {op2} {k2})"),
    ("names = []\nfor {v} in people:\n    if {v}['age'] {op} {k}:\n        names.append({v}['name'].upper())"),
    ("lengths = []\nfor {v} in words:\n    if len({v}) {op} {k}:\n        lengths.append(len({v}))"),
    ("pairs = []\nfor {v} in range({k}):\n    for j in range({k2}):\n        pairs.append(({v}, j))"),
)
BUGGY = (
    ("def total(values):\n    s = 0\n    for i in range(1, len(values)):\n        s += values[i]\n"
     "    return s", "total"),
    ("def first_item(items):\n    return items[1]", "first_item"),
    ("def is_adult(age):\n    return age > 18", "is_adult"),
    ("def countdown(n):\n    while n > 0:\n        print(n)\n    print('Go!')", "countdown"),
    ("def add_tag(tag, tags=[]):\n    tags.append(tag)\n    return tags", "add_tag"),
    ("def contains(text, word):\n    return text.find(word) > 0", "contains"),
    ("def middle(values):\n    return values[len(values) / 2]", "middle"),
    ("def average(nums):\n    return sum(nums) / len(nums) - 1", "average"),
    ("def square_all(values):\n    for v in values:\n        v = v * v\n    return values", "square_all"),
    ("def greet(name):\n    print('Hello, ' + name)\n\nmessage = greet('Sam')\nprint(message.upper())", "greet"),
)
SHORT_EDITS = (
    "Give the variables descriptive names:", "Add type annotations to this function:",
    "Add a comment to every line:", "Make this shorter without changing what it does:",
    "Write a docstring for this function:", "Explain what this function does:",
    "Write two unit tests for this function:", "Rewrite this in JavaScript:",
)
REFACTOR_CODE = (
    'orders = [("pen", 1.5, 10), ("ink", 4.0, 2), ("paper", 3.25, 5)]\nsum_ = 0\nfor name, cost, n in orders:\n'
    '    sum_ = sum_ + cost * n\nif sum_ > {k}:\n    sum_ = sum_ - {d}\nprint("To pay:", round(sum_, 2))',
    "scores = {{'ana': [7, 9, 8], 'ben': [5, 6, 9], 'cy': [10, 8, 7]}}\nfor who in scores:\n    s = 0\n"
    "    for x in scores[who]:\n        s += x\n    avg = s / len(scores[who])\n    if avg >= {k}:\n"
    "        print(who, 'passed', avg)\n    else:\n        print(who, 'failed', avg)",
    "temps = [{k}, 18, 25, 30, 12]\nhot = 0\ncold = 0\nfor t in temps:\n    if t > 24:\n        hot = hot + 1\n"
    "    if t < 15:\n        cold = cold + 1\nprint('hot days', hot)\nprint('cold days', cold)",
    "weight = {k}\nif weight < 1:\n    price = 3\nelif weight < 5:\n    price = 3 + (weight - 1) * 1.5\nelse:\n"
    "    price = 9 + (weight - 5) * {d}\nprint('Shipping:', price)",
)
REFACTOR_GOALS = (
    "the calculation lives in its own function", "the magic numbers become named constants",
    "the threshold is a parameter with a default value", "the printing is separate from the computing",
    "it is easier to test",
)
REFACTOR_ENDS = ("What it prints must not change.", "Do not change its output.",
                 "Explain your changes in two sentences.")
SMALL_FUNCS = (
    "def area(w, h):\n    return w * h", "def double(x):\n    return 2 * x",
    "def is_empty(items):\n    return len(items) == 0", "def shout(text):\n    return text.upper() + '!'",
    "def percent(part, whole):\n    return 100 * part / whole", "def last(items):\n    return items[-1]",
    "def km_to_miles(km):\n    return km * 0.621371", "def total_price(price, qty):\n    return price * qty",
    "def is_vowel(ch):\n    return ch.lower() in 'aeiou'", "def halve(values):\n    return [v / 2 for v in values]",
)
RISKY = (
    ("def load_count(path):\n    with open(path) as f:\n        return int(f.read())",
     "the file is missing or does not hold a whole number"),
    ("def price_of(prices, item):\n    return prices[item] * 1.2", "the item is not in the dictionary"),
    ("def ratio(a, b):\n    return a / b", "b is zero"),
    ("def ask_age():\n    return int(input('Age: '))", "the user types something that is not a number"),
    ("def first_line(path):\n    with open(path) as f:\n        return f.readline().strip()",
     "the file cannot be opened"),
    ("def parse_point(text):\n    x, y = text.split(',')\n    return float(x), float(y)",
     "the text is not two numbers separated by a comma"),
)
RECORDS = (
    ("Book", (("title", '""'), ("author", '""'), ("pages", "0"))),
    ("Product", (("name", '"item"'), ("price", "0.0"), ("stock", "0"))),
    ("Song", (("title", '""'), ("artist", '"unknown"'), ("seconds", "180"))),
    ("City", (("name", '""'), ("country", '""'), ("population", "0"))),
    ("Order", (("number", "0"), ("customer", '""'), ("paid", "False"))),
    ("Pet", (("name", '""'), ("species", '"cat"'), ("age", "1"))),
)


def record_class(name: str, fields) -> str:
    args = ", ".join(f"{f}={d}" for f, d in fields)
    body = "\n".join(f"        self.{f} = {f}" for f, _ in fields)
    return f"class {name}:\n    def __init__(self, {args}):\n{body}"


def edit(rng: random.Random) -> str:
    form = rng.randrange(7)
    k, k2 = rng.randint(2, 20), rng.randint(2, 9)
    if form == 0:
        snippet = rng.choice(SHORT_BODIES).format(f=rng.choice(NAMES), k=k)
        return f"{rng.choice(SHORT_EDITS)}\n\n```python\n{snippet}\n```"
    if form == 1:
        loop = rng.choice(LOOPS).format(v=rng.choice(("n", "x", "item", "p", "w")),
                                        src=rng.choice(("data", "values", "range(20)", "numbers")),
                                        op=rng.choice((">", "<", ">=")), op2=rng.choice(("*", "+", "-")),
                                        k=k, k2=k2)
        ask = rng.choice(("Turn this loop into a list comprehension:", "Rewrite this with a comprehension:",
                          "Can this loop be a one-liner? Rewrite it:"))
        return f"{ask}\n\n```python\n{loop}\n```"
    if form == 2:
        snippet, _ = rng.choice(BUGGY)
        ask = rng.choice(("This function has a bug. Find it and fix it:", "What is wrong here? Fix it:",
                          "Correct the mistake in this code:"))
        return f"{ask}\n\n```python\n{snippet}\n```"
    if form == 3:
        snippet = rng.choice(REFACTOR_CODE).format(k=k * 5, d=k2)
        return (f"Restructure this code so that {rng.choice(REFACTOR_GOALS)}. {rng.choice(REFACTOR_ENDS)}"
                f"\n\n```python\n{snippet}\n```")
    if form == 4:
        funcs = "\n\n\n".join(rng.sample(SMALL_FUNCS, rng.randint(2, 4)))
        ask = rng.choice(("Write a docstring for each function below and leave the code as it is.",
                          "Add type hints to every function below; do not change the logic.",
                          "Add a one-line comment above each function explaining it."))
        return f"{ask}\n\n```python\n{funcs}\n```"
    if form == 5:
        snippet, failure = rng.choice(RISKY)
        return (f"Change this function so that it returns None instead of raising when {failure}. "
                f"Show the complete function.\n\n```python\n{snippet}\n```")
    name, fields = rng.choice(RECORDS)
    ask = rng.choice(("Turn this class into a dataclass with the same fields and defaults.",
                      "Rewrite this class as a dataclass and add a __str__ method.",
                      "Make this class a NamedTuple; keep the field names."))
    return f"{ask}\n\n```python\n{record_class(name, fields)}\n```"
