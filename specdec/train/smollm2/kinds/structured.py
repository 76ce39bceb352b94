"""Structured output: JSON, CSV, tables, YAML and other fixed formats.
One kind of the chat-kind training set (kind_instructions.py)."""
from __future__ import annotations

import random

ENTITIES = (
    ("a book", ("title", "author", "year")), ("a product", ("sku", "name", "price")),
    ("a movie", ("title", "director", "release_year")), ("a city", ("name", "country", "population")),
    ("an employee", ("employee_id", "full_name", "department")), ("a car", ("make", "model", "year")),
    ("a song", ("title", "artist", "duration_seconds")), ("a restaurant", ("name", "cuisine", "rating")),
    ("a student", ("student_id", "name", "grade")), ("a flight", ("flight_number", "origin", "destination")),
    ("a pet", ("name", "species", "age")), ("a hotel room", ("number", "beds", "price_per_night")),
)
CSV_LISTS = (
    ("the seven continents", "continent,area_rank,largest_country"), ("five primary colours and mixes", "colour,type"),
    ("the days of the week", "day,number,is_weekend"), ("four seasons", "season,months,average_temp"),
    ("five fruits", "fruit,colour,calories"), ("the first five elements", "symbol,name,atomic_number"),
    ("six musical instruments", "instrument,family,strings"), ("four oceans", "ocean,area_rank,deepest_point"),
    ("five dog breeds", "breed,size,origin"), ("the first six months", "month,days,quarter"),
)
TABLE_ASKS = (
    "four irregular English verbs and their past participles", "four animals with the sound each one makes",
    "five countries with their currency", "three metals with their chemical symbol",
    "four shapes with their number of sides", "five units of length and how many metres each is",
    "three programming languages with the year they appeared", "four planets with their number of moons",
    "five English adjectives with their opposites",
)
YAML_THINGS = (
    "a web app called shop with port 3000 and three replicas",
    "a database named orders on port 5432 with a backup schedule",
    "a cron job that runs every night at two", "a Docker Compose setup with a web service and a Redis cache",
    "a logging setup with a file handler and a console handler", "a user profile with name, language and theme",
    "a bot called helper with two commands", "a static website with a title, a base URL and three pages",
)
BIG_STRUCTS = (
    "Return JSON describing a {dish} recipe with the keys name, serves, ingredients (each an object "
    "holding item and quantity) and method (a list of steps). Keep the values realistic.",
    "Write a YAML config for a build pipeline with {n} jobs called {jobs}. Give every job an image, "
    "a list of commands and the jobs it depends on.",
    "Build a Markdown table (columns: {cols}) for {n} {rows}.",
    "Produce a JSON array of {n} {things} for a small {shop}. Each entry needs the fields {fields}.",
    "Give a JSON object describing a {event} with a title, a date, a venue and a list of {n} speakers, "
    "each with a name and a talk title.",
)
DISHES = ("tomato soup", "banana bread", "vegetable curry", "lemon cake", "fried rice", "omelette", "guacamole",
          "oatmeal cookies", "potato salad", "lentil stew")
JOBS = ("build, test and publish", "format, check and release", "install, unit-test and package",
        "compile, scan and upload")
TABLE_SPECS = (
    ("Mountain, Country, Height (m) and First climbed", "mountains on at least three continents"),
    ("River, Continent, Length (km) and Mouth", "long rivers"),
    ("Inventor, Invention, Year and Country", "famous inventions"),
    ("Language, Typing, Year and Typical use", "programming languages"),
    ("Animal, Habitat, Diet and Lifespan", "wild animals"),
    ("Composer, Century, Famous work and Instrument", "composers"),
)
SHOP_ITEMS = (("plants", "garden centre", "id, name, price, in_stock and sunlight"),
              ("games", "toy shop", "id, title, min_age, price and available"),
              ("records", "music shop", "id, artist, album, price and sold_out"),
              ("bikes", "cycle shop", "id, model, size, price and in_stock"),
              ("cheeses", "deli", "id, name, milk, price_per_kg and available"))
EVENTS = ("science fair", "book club meeting", "coding workshop", "charity run", "photography meetup")


def structured(rng: random.Random) -> str:
    form = rng.randrange(7)
    n = rng.randint(3, 6)
    if form == 0:
        what, fields = rng.choice(ENTITIES)
        f = list(fields) + rng.sample(("notes", "tags", "created_at", "active"), rng.randint(0, 1))
        return rng.choice((f"Write out a JSON object for {what} with the fields {', '.join(f[:-1])} and {f[-1]}.",
                           f"Return JSON for {what}: {', '.join(f)}."))
    if form == 1:
        return rng.choice((f"Write a YAML document for {rng.choice(YAML_THINGS)}.",
                           f"YAML for {rng.choice(YAML_THINGS)}, please."))
    if form == 2:
        what, cols = rng.choice(CSV_LISTS)
        return f"List {what} as CSV with the header {cols}."
    if form == 3:
        return rng.choice(("Markdown table: ", "Draw up a small Markdown table of ")) + \
            rng.choice(TABLE_ASKS) + "."
    fmt = rng.choice(BIG_STRUCTS)
    cols, rows = rng.choice(TABLE_SPECS)
    things, shop, fields = rng.choice(SHOP_ITEMS)
    return fmt.format(dish=rng.choice(DISHES), n=n, jobs=rng.choice(JOBS), cols=cols, rows=rows,
                      things=things, shop=shop, fields=fields, event=rng.choice(EVENTS))
