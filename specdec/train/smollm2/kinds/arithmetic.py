"""Word problems with numbers (one to several steps).
One kind of the chat-kind training set (kind_instructions.py)."""
from __future__ import annotations

import random

PEOPLE = ("Leo", "Aiko", "Omar", "Priya", "Jonas", "Sofia", "Kwame", "Elena", "Tariq", "Mei")
ITEMS = ("stickers", "marbles", "cookies", "pencils", "stamps", "cards", "eggs", "shells", "oranges")
VEHICLES = ("A bus", "A delivery van", "A boat", "A truck", "A ferry", "A tractor", "A scooter")
STEPS = ("Explain how you got the answer.", "Work it out step by step.", "Show every step.",
         "Give the answer and the calculation.", "Explain your working.")


def arithmetic(rng: random.Random) -> str:
    form = rng.randrange(12)
    who, other = rng.sample(PEOPLE, 2)
    a, b = rng.randint(14, 90), rng.randint(2, 13)
    return FORMS[form](rng, who, other, a, b)


# One function per form of problem, each (rng, who, other, a, b) -> the problem; the draws each
# makes come after the shared ones above, in the order it makes them.
def _gave_away(rng, who, other, a, b) -> str:
    thing = rng.choice(ITEMS)
    return f"{who} had {a} {thing} and gave {b} away. How many does {who} have now?"


def _average_speed(rng, who, other, a, b) -> str:
    h = rng.randint(2, 6)
    return (f"{rng.choice(VEHICLES)} covers {h * rng.randint(8, 60)} km in {h} hours. "
            "How fast was it on average, in km/h?")


def _percent(rng, who, other, a, b) -> str:
    p, n = rng.choice((5, 10, 20, 25, 30, 40, 60, 75)), rng.choice(range(100, 1001, 20))
    return rng.choice((f"What is {p}% of {n}?", f"Calculate {p} percent of {n}."))


def _sum_range(rng, who, other, a, b) -> str:
    lo = rng.randint(1, 20)
    return rng.choice((f"Add up all the whole numbers from {lo} to {lo + rng.randint(10, 90)}.",
                       f"What do the whole numbers {lo} through {lo + rng.randint(10, 90)} add up to?"))


def _one_step(rng, who, other, a, b) -> str:
    return rng.choice((f"What is {a} times {b} minus {rng.randint(1, 50)}?",
                       f"How many minutes are there in {b} hours and {a % 60} minutes?",
                       f"Divide {a * b} by {b}.", f"What is {a} squared?"))


def _donated(rng, who, other, a, b) -> str:
    n, p = rng.choice(range(120, 601, 20)), rng.choice((60, 70, 75, 80, 90))
    shop = rng.choice(("A bakery", "A farm stand", "A school kitchen", "A café"))
    thing = rng.choice(("loaves", "pies", "sandwiches", "muffins"))
    return (f"{shop} prepares {n} {thing} a day and sells {p}% of them. The rest are donated. How many "
            f"{thing} are donated each week? {rng.choice(STEPS)}")


def _ferry(rng, who, other, a, b) -> str:
    hh, mm, h, m = rng.randint(6, 15), rng.choice(range(0, 60, 5)), rng.randint(1, 4), rng.choice(range(5, 60, 5))
    w, d = rng.choice((10, 15, 25, 30, 45)), rng.choice((5, 15, 20))
    return (f"A ferry departs at {hh:02d}:{mm:02d} and the crossing lasts {h} hours and {m} minutes. After a "
            f"{w}-minute stop it sails back, and the return crossing is {d} minutes longer. When does it get "
            f"back? {rng.choice(STEPS)}")


def _tiles(rng, who, other, a, b) -> str:
    w, length, t = rng.randint(3, 9), rng.randint(3, 12), rng.choice((25, 50))
    return (f"A floor is {w} metres long and {length} metres wide. Square tiles measure {t} cm on each side. How "
            f"many tiles cover the floor, and how many boxes of {rng.choice((10, 20, 25))} tiles must be bought? "
            f"{rng.choice(STEPS)}")


def _savings(rng, who, other, a, b) -> str:
    x, y = rng.randint(40, 120), rng.randint(3, 8)
    z, u = rng.randint(0, x // 2), y + rng.randint(2, 6)
    return (f"{who} has {x} euros and puts away {y} euros a week. {other} starts with {z} euros and puts away "
            f"{u} euros a week. In which week does {other} first have more than {who}? {rng.choice(STEPS)}")


def _discount(rng, who, other, a, b) -> str:
    n, price, p = rng.randint(3, 7), rng.choice((2.5, 3.2, 4.75, 6.0, 12.5)), rng.choice((10, 15, 20))
    return (f"{who} buys {n} notebooks at {price} dollars each and a bag for {rng.randint(8, 30)} dollars. "
            f"The shop takes {p}% off the whole bill. How much does {who} pay? {rng.choice(STEPS)}")


def _average_score(rng, who, other, a, b) -> str:
    scores = [rng.randint(50, 100) for _ in range(rng.randint(3, 5))]
    return (f"{who}'s test scores are {', '.join(map(str, scores[:-1]))} and {scores[-1]}. What score is needed "
            f"on the next test for an average of {rng.choice((75, 80, 85))}? {rng.choice(STEPS)}")


def _recipe(rng, who, other, a, b) -> str:
    people, serves = rng.randint(6, 20), rng.choice((2, 4))
    return (f"A recipe for {serves} people needs {rng.randint(150, 400)} g of flour and {rng.randint(1, 3)} eggs. "
            f"How much of each is needed for {people} people? {rng.choice(STEPS)}")


FORMS = (_gave_away, _average_speed, _percent, _sum_range, _one_step, _donated, _ferry, _tiles, _savings,
         _discount, _average_score, _recipe)
