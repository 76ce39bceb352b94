"""Creative writing: poems, stories, letters, dialogues, myths.
One kind of the chat-kind training set (kind_instructions.py)."""
from __future__ import annotations

import random

SCENES = ("snow on a mountain village", "a train at midnight", "an empty playground", "the first warm day of spring",
          "a market at dawn", "an old bridge", "a kite on a windy hill", "a kitchen on a Sunday",
          "a fox in the city", "the last leaf on a tree", "a candle in a dark room", "a river in flood",
          "a grandmother's garden", "stars over a campsite", "a lost umbrella", "a school bell")
CHARACTERS = ("an old tailor", "a boy", "a retired pilot", "a shy dragon", "a baker", "twin sisters",
              "a robot gardener", "a lonely giant", "a postman", "a young inventor", "a street musician")
QUIRKS = ("hears the walls whisper", "receives a letter addressed to someone who does not exist",
          "wakes up able to speak to birds", "finds a map drawn in invisible ink",
          "discovers a door behind the bookcase", "keeps finding the same coin in every pocket",
          "is the only one who remembers yesterday", "buys a clock that runs backwards")
IMAGES = ("wind in the wheat", "a cat asleep in the sun", "frost on a window", "a frog in a puddle",
          "steam from a teacup", "autumn geese", "a bicycle bell", "moonlight on snow", "a spider's web at dawn",
          "cherry blossom falling")
BUSINESSES = ("bakery", "dog-walking service", "plant shop", "second-hand bookshop", "ice-cream van",
              "yoga studio", "laundrette", "music school", "tea room", "computer repair service")
PETS = (("dog", "can smell lies"), ("parrot", "repeats tomorrow's news"), ("goldfish", "knows who will visit"),
        ("tortoise", "always finds lost things"), ("hamster", "predicts the weather"))
OWNERS = ("a night-shift nurse", "a village baker", "a ship's cook", "a museum guard", "a train driver")
ENDINGS = ("an unexpected reveal", "a happy surprise", "a twist in the last line", "a question")
LETTERS = (("a teacher at the only school on the Moon", "her old students on Earth", "what lessons are like",
            "what is hard", "what she looks forward to"),
           ("a sailor on a year-long voyage", "his younger brother", "the ports he has seen", "the storms",
            "the food he misses"),
           ("a zookeeper", "a child who sent a drawing", "the animals' habits", "the busiest part of the day",
            "a funny moment"),
           ("a time traveller from 1900", "a friend back home", "what surprised him", "what frightened him",
            "what he wants to take back"))
DIALOGUES = (("a tired wizard", "a customer service robot", "is trying to return a broken wand"),
             ("a cat", "a vacuum cleaner", "are arguing about who owns the sofa"),
             ("two pigeons", "a statue", "are planning a picnic"),
             ("a pirate", "a librarian", "wants to borrow a treasure map"),
             ("a snowman", "the Sun", "are negotiating the end of winter"))
MYTHS = (("the moon", "changes shape"), ("zebras", "have stripes"), ("the sea", "is salty"),
         ("cats", "land on their feet"), ("the wind", "never stays still"), ("frogs", "sing after rain"),
         ("rainbows", "appear after storms"), ("tortoises", "carry their houses"))


def creative(rng: random.Random) -> str:
    form = rng.randrange(8)
    if form == 0:
        return rng.choice((f"A four-line poem about {rng.choice(SCENES)}.", f"A short rhyming poem about "
                           f"{rng.choice(SCENES)}.", f"Write a limerick about {rng.choice(SCENES)}."))
    if form == 1:
        return rng.choice((f"Start a story about {rng.choice(CHARACTERS)} who {rng.choice(QUIRKS)}.",
                           f"Write the first paragraph of a tale about {rng.choice(CHARACTERS)} who "
                           f"{rng.choice(QUIRKS)}."))
    if form == 2:
        return rng.choice((f"Haiku: {rng.choice(IMAGES)}.", f"Write a haiku about {rng.choice(IMAGES)}."))
    if form == 3:
        return rng.choice((f"Invent a slogan for a {rng.choice(BUSINESSES)}.",
                           f"Suggest three names for a {rng.choice(BUSINESSES)}."))
    if form == 4:
        pet, power = rng.choice(PETS)
        return (f"Write a story of roughly {rng.choice((100, 120, 150, 200))} words about {rng.choice(OWNERS)} whose "
                f"{pet} {power}. Finish with {rng.choice(ENDINGS)}.")
    if form == 5:
        sender, to, a, b, c = rng.choice(LETTERS)
        return f"Write a letter from {sender} to {to}, telling {rng.choice(('them', 'about'))} {a}, {b} and {c}."
    if form == 6:
        x, y, situation = rng.choice(DIALOGUES)
        return rng.choice((f"Write a humorous conversation between {x} and {y} who {situation}.",
                           f"Write a short comic scene: {x} and {y} {situation}."))
    thing, trait = rng.choice(MYTHS)
    return rng.choice((f"Tell a folk tale that explains why {thing} {trait}. Name the main character and "
                       "give the tale a moral.",
                       f"Make up a legend about how {thing} came to "
                       f"{'change' if trait == 'changes shape' else 'be like this'}"
                       f": {thing} {trait}. Include a clever trick."))
