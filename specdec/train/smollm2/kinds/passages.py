"""Passage kinds: summarise a passage, and answer a question about one.
One kind of the chat-kind training set (kind_instructions.py)."""
from __future__ import annotations

import random

# Short paragraphs on other subjects than the held-out set's, each with two questions.
PARAGRAPHS = (
    ("Lighthouses guided ships along dangerous coasts long before satellite navigation. Each one had its own "
     "pattern of flashes, so sailors could tell which light they were looking at. Early lamps burned oil or "
     "whale fat, and a keeper had to trim the wicks through the night. Today most lighthouses run "
     "automatically, and many old keepers' cottages have become small museums.",
     ("How could sailors tell one lighthouse from another?", "What did early lamps burn?")),
    ("Salmon hatch in rivers, swim down to the sea and spend several years growing in salt water. When they "
     "are ready to breed, they return to the very stream where they were born, often leaping up waterfalls on "
     "the way. Scientists think they find it by smell. After spawning, most Pacific salmon die, and their "
     "bodies feed the forest and the insects along the river.",
     ("How do salmon find the stream where they were born?", "What happens to most Pacific salmon after spawning?")),
    ("Windmills were once common across the flat lands of northern Europe. Their sails turned a heavy stone "
     "that ground grain into flour, and some mills pumped water out of low fields instead. A miller had to "
     "turn the whole cap of the mill so the sails faced the wind. Modern wind turbines work on a similar "
     "idea but make electricity rather than flour.",
     ("What two jobs did windmills do?", "How are modern wind turbines different from old windmills?")),
    ("Maple syrup is made from the sap of maple trees in early spring, when cold nights and mild days make the "
     "sap flow. Farmers drill a small hole in each trunk and collect the clear, watery sap. It takes about "
     "forty litres of sap to boil down into a single litre of syrup, which is why the syrup is expensive.",
     ("Why is maple syrup expensive?", "When is the sap collected?")),
    ("The abacus is a counting frame with beads that slide on rods. Merchants in many ancient cultures used it "
     "to add and subtract quickly, and skilled users could even multiply and divide. In some schools children "
     "still learn it, because moving the beads helps them picture how numbers are built from tens and ones.",
     ("Who used the abacus in ancient times?", "Why do some schools still teach the abacus?")),
    ("Glass is made by heating sand, soda and lime until they melt into a glowing liquid. A glassblower "
     "gathers a blob of it on the end of a long pipe and blows air into it to form a bubble, then shapes it "
     "with tools while it is still soft. The finished piece must cool slowly in a warm oven, or it may crack.",
     ("What is glass made from?", "Why must a finished glass piece cool slowly?")),
    ("Carrier pigeons can find their way home from hundreds of kilometres away. Armies used them to carry "
     "short messages in tiny tubes tied to their legs, and during wars some birds were given medals for "
     "their service. Researchers believe the pigeons use the Sun, the Earth's magnetic field and familiar "
     "landmarks to navigate.",
     ("How were messages attached to the pigeons?", "What helps pigeons find their way, according to researchers?")),
    ("Silk comes from the cocoons of silkworms, which feed only on mulberry leaves. Each cocoon is a single "
     "thread that can be more than a kilometre long. For centuries the method of making silk was a closely "
     "kept secret, and the cloth was traded over long distances because it was light, strong and beautiful.",
     ("What do silkworms eat?", "Why was silk traded over long distances?")),
    ("Cacti survive in deserts because they store water in their thick stems. Their spines are leaves that "
     "have changed shape; they lose far less water than flat leaves and also keep thirsty animals away. Many "
     "cacti open their pores only at night, when the air is cooler, so that less water escapes.",
     ("Where do cacti store water?", "Why do many cacti open their pores only at night?")),
    ("The first public libraries lent books free of charge to anyone who lived in the town. Before them, "
     "books were expensive and most people could read only what their church or employer owned. Libraries "
     "also offered warm reading rooms, newspapers and, later, evening classes, which made them important "
     "places for people who wanted to learn.",
     ("What did public libraries offer besides books?", "What was reading like before public libraries?")),
    ("Hot springs form where underground water is heated by hot rock deep below the surface and rises back up "
     "through cracks. The water often carries dissolved minerals, which can colour the rocks around the pool "
     "orange, green or white. In cold countries people have bathed in hot springs for thousands of years.",
     ("What heats the water of a hot spring?", "Why are the rocks around some hot springs coloured?")),
    ("Origami is the art of folding a single square of paper into a shape without cutting or gluing it. "
     "Simple models such as a crane or a boat need only a dozen folds, while complex ones may need hundreds. "
     "Engineers have borrowed origami ideas to fold solar panels and medical devices into small packages.",
     ("What is not allowed in origami?", "How have engineers used ideas from origami?")),
)
FACTS = (
    ("Octopuses have three hearts, and their blood is blue because it carries copper.", "Why is octopus blood blue?"),
    ("Sound travels about four times faster in water than in air.", "Where does sound travel faster?"),
    ("Camels store fat, not water, in their humps.", "What do camels store in their humps?"),
    ("The Eiffel Tower grows a few centimetres taller in summer because the iron expands in the heat.",
     "Why is the tower taller in summer?"),
    ("Honey never spoils when it is kept sealed, because it holds very little water.",
     "Why does sealed honey not spoil?"),
    ("Koalas sleep up to twenty hours a day to save the energy their leafy diet cannot provide.",
     "Why do koalas sleep so much?"),
    ("Venus spins so slowly that one day there lasts longer than its year.",
     "Which is longer on Venus, a day or a year?"),
    ("Bananas are slightly radioactive because they contain potassium.", "What makes bananas slightly radioactive?"),
    ("Owls cannot move their eyes, so they turn their heads instead.", "How do owls look to the side?"),
    ("Bamboo can grow almost a metre in a single day.", "How fast can bamboo grow?"),
    ("A group of flamingos is called a flamboyance.", "What is a group of flamingos called?"),
    ("Apples float in water because a quarter of their volume is air.", "Why do apples float?"),
    ("Sea otters hold hands while they sleep so they do not drift apart.", "Why do sea otters hold hands?"),
    ("Snails breathe through a hole in the side of their body called a pneumostome.", "How do snails breathe?"),
    ("Polar bears have black skin under their white fur, which helps them absorb heat.",
     "What colour is a polar bear's skin, and why does it help?"),
    ("Chess was played in India as early as the sixth century, under the name chaturanga.",
     "What was chess called in early India?"),
    ("The heart of a blue whale weighs about as much as a small car.", "How heavy is a blue whale's heart?"),
    ("Most of the dust in a house is made of tiny bits of skin, fibres and soil from outside.",
     "What is household dust made of?"),
    ("Strawberries are not true berries, but bananas and tomatoes are.",
     "Which fruits in the passage are true berries?"),
    ("Lightning heats the air around it to about five times the temperature of the Sun's surface.",
     "How hot does the air around lightning get?"),
)
GENERIC_QUESTIONS = (
    "What is the main idea of this text?", "Name two facts the text gives.", "Which example does the text give?",
    "What would be a good title for this text?", "Who or what is the text mainly about?",
    "Does the text give any numbers? If so, what do they describe?", "What is one reason the text gives?",
)
SUMMARY_SHORT = ("Summarise:", "Give a short summary:", "Sum this up in a few words:", "One-line summary:",
                 "In one sentence, what does this say?")
SUMMARY_LONG = (
    "Summarise the text below in {n} bullet points.", "Write a {n}-sentence summary of this text.",
    "Summarise this paragraph for a {age}-year-old in two sentences.",
    "Summarise the following in one paragraph of no more than {w} words.",
    "What are the main points of this text? Give a brief summary.",
    "Write a one-sentence summary and then a list of the key facts.",
)


def summarise(rng: random.Random, texts: list[str]) -> str:
    form = rng.randrange(3)
    if form == 0:
        fact, _ = rng.choice(FACTS)
        sep = rng.choice((" ", "\n\n"))
        return f"{rng.choice(SUMMARY_SHORT)}{sep}{fact}"
    text = rng.choice(PARAGRAPHS)[0] if form == 1 or not texts else rng.choice(texts)
    ask = rng.choice(SUMMARY_LONG).format(n=rng.randint(2, 4), age=rng.choice((8, 9, 10, 12)),
                                          w=rng.choice((25, 30, 50, 60)))
    return f"{ask}\n\n{text}"


def passage_qa(rng: random.Random, texts: list[str]) -> str:
    form = rng.randrange(4)
    if form == 0:
        fact, q = rng.choice(FACTS)
        return rng.choice((f"Passage: {fact}\n\nQuestion: {q}", f"Text: {fact}\nQ: {q}",
                           f"{fact}\n\nBased on this, {q[0].lower()}{q[1:]}"))
    if form == 1:
        text, questions = rng.choice(PARAGRAPHS)
        q = rng.choice(questions)
    else:
        text = rng.choice(texts) if texts else rng.choice(PARAGRAPHS)[0]
        q = rng.choice(GENERIC_QUESTIONS)
    return rng.choice((
        f"{text}\n\nQuestion: {q}",
        f"Use the text to answer.\n\n{text}\n\nQuestion: {q}",
        f"{text}\n\nAnswer from the text above: {q[0].lower()}{q[1:]}",
        f"Here is a passage:\n\n{text}\n\n{q} Answer in one or two sentences.",
    ))
