"""Translation requests: lines, paragraphs, recipes, emails.
One kind of the chat-kind training set (kind_instructions.py)."""
from __future__ import annotations

import random

LANG_OUT = ("French", "Spanish", "German", "Italian", "Portuguese", "Dutch")
SHORT_LINES = (
    "See you tomorrow at the station.", "The shop is closed on Sundays.", "Can I pay by card?",
    "My sister is a doctor.", "We missed the last bus.", "The coffee is too hot.", "Where can I buy a ticket?",
    "I am sorry I am late.", "Happy birthday, my friend!", "The keys are on the table.",
    "It is very cold this morning.", "Do you speak English?", "The film starts at eight.",
    "I need a room for two nights.", "Please speak more slowly.", "My phone battery is empty.",
    "The garden is full of flowers.", "We are looking for the beach.", "He forgot his passport.",
    "This bread is still warm.", "Could you repeat that, please?", "The children are asleep.",
)
PARA_PARTS = (
    ("Our class will go to the zoo on Friday.", "The bus leaves from the school gate at half past eight.",
     "Please pack a lunch and a raincoat.", "We will be back before four in the afternoon."),
    ("The new café on the corner opens next week.", "It will serve breakfast until noon.",
     "On the first day every customer gets a free cake.", "Dogs are welcome on the terrace."),
    ("My grandfather grew up on a farm near the mountains.", "Every morning he walked an hour to school.",
     "In winter the road was often covered in snow.", "He still tells us stories about those years."),
    ("The swimming pool will be closed for repairs in May.", "Members can use the gym as usual.",
     "We apologise for any trouble this may cause.", "The pool reopens on the first of June."),
)
RECIPES = (
    ("Cut the onions and fry them in a little oil.", "Add the tomatoes and cook for ten minutes.",
     "Season with salt and pepper.", "Serve the sauce with rice or pasta."),
    ("Wash the potatoes and cut them into cubes.", "Boil them for fifteen minutes.",
     "Drain the water and mash them with butter.", "Sprinkle a little parsley on top."),
    ("Beat two eggs with a pinch of salt.", "Heat a pan and melt some butter in it.",
     "Pour in the eggs and stir gently.", "Take the pan off the heat while the eggs are still soft."),
)
EMAIL_NAMES = (("Ms. Costa", "Jan"), ("Dr. Lindqvist", "Amira"), ("Mr. Okafor", "Lucía"), ("Mrs. Brandt", "Tom"))
EMAIL_BODIES = (
    "thank you for the invitation. I am happy to join the workshop on Thursday. Could you tell me where to park?",
    "I am writing about my order from last week. The parcel has not arrived yet. Could you check where it is?",
    "many thanks for sending the report. I have read it and have two small questions. Can we talk on Friday?",
    "I would like to move our appointment to next Monday. Is ten o'clock convenient for you?",
)
STORY_LINES = ("The baker said that good bread, like good friends, needs time.",
               "Every night the little boat came home with its lantern shining.",
               "The girl with the red scarf waved until the train disappeared.",
               "Nobody in the village knew who planted the apple tree on the hill.")


def translation(rng: random.Random) -> str:
    lang = rng.choice(LANG_OUT)
    form = rng.randrange(5)
    if form in (0, 1):
        line = rng.choice(SHORT_LINES + STORY_LINES)
        return rng.choice((f"Translate to {lang}: {line}", f"Translate into {lang}: {line}",
                           f"How do you say this in {lang}? {line}", f"{lang} please: {line}"))
    if form == 2:
        parts = rng.choice(PARA_PARTS)
        text = " ".join(parts[:rng.randint(3, 4)])
        return f"{rng.choice(('Translate this paragraph into', 'Please put this text into'))} {lang}:\n\n{text}"
    if form == 3:
        text = " ".join(rng.choice(RECIPES))
        return f"Translate these cooking steps into {lang}:\n\n{text}"
    to, sender = rng.choice(EMAIL_NAMES)
    return (f"Translate this message into {lang}:\n\nDear {to}, {rng.choice(EMAIL_BODIES)} "
            f"{rng.choice(('Best wishes', 'Kind regards', 'Many thanks'))}, {sender}")
