"""A third set of training instructions, one per kind of the held-out chat set, phrased the way
those prompts are (`selfgen --set kinds`).

`smollm2/draft` agreed with the target on 63 % of held-out answers to its own kind of
instruction but on 52 % of the hand-written chat prompts' answers (summarise, translation and
passage-qa lowest). This set follows the chat set's eight kinds — code, edit, structured,
summarise, passage-qa, arithmetic, creative, translation — and their shapes: short one-line
requests ("Python: a function …", "Haiku: …", "Translate to Spanish: …") beside long ones
with a constraint at the end ("… Explain each step.", "… Keep the behaviour the same."),
code to edit in a fenced block after a one-line request, a passage followed by
"Question: …", a short "Passage: … Question: …" pair, multi-step word problems, emails and
instructions to translate. Every kind gets the same share (instruction i is of kind i mod 8).

All text here is written for this set or generated from templates and word lists (fixed seed);
the long passages are the target's own explanatory answers from the committed shards made
before this set (`chat_instructions.answer_passages`, shards below FIRST_SHARD) and a few
short paragraphs written here on other subjects than the chat set's. It shares no text with
the held-out prompts: no word 6-gram of theirs occurs here (`tests/test_smollm2_data.py`).
Shards of this set start at FIRST_SHARD (200), clear of the earlier sets' 0-155.
"""
from __future__ import annotations

import random
from pathlib import Path

KINDS = ("code", "edit", "structured", "summarise", "passage-qa", "arithmetic", "creative", "translation")
FIRST_SHARD = 200
SEED = 27

# ---------------------------------------------------------------- code
LANGS = ("Python", "Python", "Python", "JavaScript", "TypeScript", "Go", "Rust", "Java", "C#", "Ruby")
EXERCISES = (
    "a prime sieve", "bubble sort", "a number guessing game", "a Caesar cipher", "run-length encoding",
    "Pascal's triangle", "the Collatz sequence", "a multiplication table", "a dice roller",
    "a simple calculator", "a password generator", "merge sort", "quicksort", "binary search",
    "a countdown timer", "a word counter", "a vowel counter", "roman numeral conversion",
    "a letter histogram", "matrix multiplication", "a factorial function", "a stack",
    "a tic-tac-toe board printer", "a unit converter", "a to-do list for the terminal",
    "Fibonacci with memoisation", "an anagram checker", "a hangman game",
)
SIGNATURES = (
    ("is_even(n)", "says whether n is even"), ("count_words(text)", "returns how many words a text has"),
    ("clamp(x, low, high)", "keeps x between low and high"),
    ("initials(full_name)", "returns the initials of a full name"),
    ("average(numbers)", "returns the mean of a list, or 0 for an empty list"),
    ("is_sorted(values)", "says whether a list is sorted in ascending order"),
    ("digits(n)", "returns the digits of a positive integer as a list"),
    ("last_n(items, n)", "returns the last n items of a list"),
    ("max_index(values)", "returns the position of the largest value"),
    ("safe_divide(a, b)", "divides a by b and returns None when b is zero"),
    ("is_palindrome(word)", "ignores case and says whether a word reads the same backwards"),
    ("count_char(text, ch)", "counts how often a character occurs in a text"),
    ("to_minutes(hours, minutes)", "turns hours and minutes into a number of minutes"),
    ("median(values)", "returns the middle value of a list of numbers"),
    ("capitalize_words(sentence)", "capitalises the first letter of each word"),
    ("unique(items)", "removes duplicates and keeps the original order"),
    ("seconds_to_clock(seconds)", "formats a number of seconds as HH:MM:SS"),
    ("nth_prime(n)", "returns the n-th prime number"), ("flatten(nested)", "flattens a list of lists"),
    ("shout(text)", "returns the text in upper case followed by an exclamation mark"),
    ("bmi(weight_kg, height_m)", "computes the body mass index"),
    ("word_freq(text)", "returns a dictionary of word counts"),
    ("chunks(items, size)", "splits a list into pieces of the given size"),
    ("gcd(a, b)", "returns the greatest common divisor of two integers"),
)
EXPRESSIONS = (
    "keeps only the positive numbers of a list", "sums the squares of a list of numbers",
    "turns a list of strings into upper case", "counts the zeros in a list",
    "reverses every word in a list", "builds a dictionary from a list of keys and a list of values",
    "finds the longest string in a list", "joins a list of numbers with commas",
    "swaps the keys and values of a dictionary", "removes the empty strings from a list",
    "picks every second element of a list", "checks whether all numbers in a list are even",
    "sorts a list of names by their last letter", "counts the words longer than five letters",
)
HOWTOS = (
    "sort a list of tuples by their second item", "write a list of dictionaries to a CSV file",
    "read an environment variable with a default", "get the current date and time",
    "copy a file to another folder", "list the files in a folder", "merge two dictionaries",
    "check whether a key exists in a dictionary", "read a text file line by line",
    "round a float to two decimal places", "pretty-print a nested dictionary",
    "iterate over two lists at the same time", "catch an exception and print its message",
    "measure how long a function takes", "ask the user for a number and check the input",
    "split a sentence into words", "remove punctuation from a string", "make a deep copy of a list",
    "send a GET request and print the status code", "generate a random integer between 1 and 6",
)
CLASSES = (
    ("BankAccount", "holds an owner and a balance", "deposit(amount)", "withdraw(amount)"),
    ("Stopwatch", "records when it was started", "start()", "elapsed_seconds()"),
    ("Rectangle", "stores a width and a height", "area()", "perimeter()"),
    ("Inventory", "keeps item counts in a dictionary", "add(item, count)", "remove(item, count)"),
    ("Playlist", "stores song titles", "add_song(title)", "shuffle()"),
    ("Circle", "stores a radius", "area()", "circumference()"),
    ("Student", "stores a name and a list of marks", "add_mark(mark)", "average()"),
    ("ShoppingList", "stores items with quantities", "add(item, quantity)", "total_items()"),
    ("Vector2", "stores x and y", "length()", "add(other)"),
    ("Fraction", "stores a numerator and a denominator", "simplify()", "to_float()"),
    ("Recipe", "stores ingredients with amounts and a number of servings", "scale(servings)",
     "ingredient_list()"),
    ("ParkingLot", "has a fixed number of spaces", "park(plate)", "leave(plate)"),
    ("Timer", "counts down from a number of seconds", "tick()", "is_done()"),
    ("Wallet", "stores coins by value", "add_coin(value)", "total()"),
)
CLI_TASKS = (
    "counts the words in a text file given as an argument", "prints the largest file in a folder",
    "converts a CSV file to JSON", "prints the lines of a file that contain a given word",
    "renames every .txt file in a folder to lower case", "prints a random line from a text file",
    "adds up the numbers in a file, one number per line", "prints the size of each file in a folder",
    "counts the blank lines in a file", "prints the last N lines of a log file",
)
CLI_EXTRAS = (
    "Use argparse for the arguments and print a helpful message when the file cannot be found.",
    "Add a --verbose flag that prints what the script is doing.",
    "Exit with status 1 and a short message on any error.",
    "Let the user choose the encoding with an --encoding option that defaults to utf-8.",
)
SQL_TASKS = (
    ("lists every student with the average of their scores",
     "students(id, name) and scores(student_id, subject, score)"),
    ("finds the three most borrowed books", "books(id, title) and loans(id, book_id, loan_date)"),
    ("counts the employees in each department", "departments(id, name) and employees(id, name, department_id)"),
    ("selects the products that were never ordered", "products(id, name) and order_items(order_id, product_id)"),
    ("shows the total sales for each month of 2023", "sales(id, sold_at, amount)"),
    ("finds the cities with more than ten customers", "clients(id, name, city)"),
    ("lists the authors who wrote more than two books", "authors(id, name) and books(id, author_id, title)"),
    ("selects the most recent order of every client", "clients(id, name) and purchases(id, client_id, created_at)"),
    ("finds the average rating of each film with at least five reviews",
     "films(id, title) and reviews(id, film_id, rating)"),
)
SQL_EXTRAS = ("Explain briefly what each part does.", "Add a comment above every clause.",
              "Use a JOIN and a GROUP BY, and explain why both are needed.", "Sort the result sensibly.")
HELPERS = (
    ("a throttle function", "calls a given function at most once every n milliseconds",
     "how the time of the last call is kept"),
    ("a memoize helper", "caches the results of a one-argument function", "how the cache is checked"),
    ("a retry helper", "calls an async function up to three times when it fails", "when it gives up"),
    ("a deep clone function", "copies nested objects and arrays", "how arrays are told apart from objects"),
    ("a small event emitter", "supports on, off and emit", "how the listeners are stored"),
    ("a once helper", "lets a function run only the first time it is called", "where the result is kept"),
    ("a sleep function", "returns a promise that resolves after n milliseconds", "how the promise is resolved"),
    ("a chunk function", "splits an array into groups of n items", "what happens to a shorter last group"),
)


def code(rng: random.Random) -> str:
    lang = rng.choice(LANGS)
    form = rng.randrange(8)
    if form == 0:
        return f"Write {rng.choice(EXERCISES)} in {lang}."
    if form == 1:
        sig, does = rng.choice(SIGNATURES)
        return rng.choice((f"{lang}: a function {sig} that {does}.",
                           f"Write a {lang} function {sig} that {does}.",
                           f"In {lang}, write {sig}, which {does}."))
    if form == 2:
        return rng.choice((f"A single {lang} expression that {rng.choice(EXPRESSIONS)}, please.",
                           f"What is a short {lang} one-liner that {rng.choice(EXPRESSIONS)}?"))
    if form == 3:
        return rng.choice((f"Show how to {rng.choice(HOWTOS)} in {lang}.",
                           f"How do I {rng.choice(HOWTOS)} in {lang}?"))
    if form == 4:
        name, stores, m1, m2 = rng.choice(CLASSES)
        lang = rng.choice(("Python", "Python", "Java", "TypeScript", "C#"))
        return (f"Write a {lang} class {name} that {stores}, with the methods {m1} and {m2}. "
                + rng.choice(("Finish with a small example of how to use it.",
                              "Show it in use with two or three lines after the class.",
                              "Keep it short and add one line of comment per method.")))
    if form == 5:
        lang = rng.choice(("Python", "Python", "Node.js", "Bash"))
        return f"Write a small {lang} script that {rng.choice(CLI_TASKS)}. {rng.choice(CLI_EXTRAS)}"
    if form == 6:
        task, tables = rng.choice(SQL_TASKS)
        return f"Write an SQL query that {task}, using the tables {tables}. {rng.choice(SQL_EXTRAS)}"
    what, does, why = rng.choice(HELPERS)
    lang = rng.choice(("JavaScript", "JavaScript", "TypeScript", "Python"))
    return f"Implement {what} in {lang} that {does}. Comment the code to explain {why}."


# ---------------------------------------------------------------- edit
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


# ---------------------------------------------------------------- structured
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


# ---------------------------------------------------------------- passages (summarise, passage-qa)
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


# ---------------------------------------------------------------- arithmetic
PEOPLE = ("Leo", "Aiko", "Omar", "Priya", "Jonas", "Sofia", "Kwame", "Elena", "Tariq", "Mei")
ITEMS = ("stickers", "marbles", "cookies", "pencils", "stamps", "cards", "eggs", "shells", "oranges")
VEHICLES = ("A bus", "A delivery van", "A boat", "A truck", "A ferry", "A tractor", "A scooter")
STEPS = ("Explain how you got the answer.", "Work it out step by step.", "Show every step.",
         "Give the answer and the calculation.", "Explain your working.")


def arithmetic(rng: random.Random) -> str:
    form = rng.randrange(12)
    who, other = rng.sample(PEOPLE, 2)
    a, b = rng.randint(14, 90), rng.randint(2, 13)
    if form == 0:
        thing = rng.choice(ITEMS)
        return f"{who} had {a} {thing} and gave {b} away. How many does {who} have now?"
    if form == 1:
        h = rng.randint(2, 6)
        return (f"{rng.choice(VEHICLES)} covers {h * rng.randint(8, 60)} km in {h} hours. "
                "How fast was it on average, in km/h?")
    if form == 2:
        p, n = rng.choice((5, 10, 20, 25, 30, 40, 60, 75)), rng.choice(range(100, 1001, 20))
        return rng.choice((f"What is {p}% of {n}?", f"Calculate {p} percent of {n}."))
    if form == 3:
        lo = rng.randint(1, 20)
        return rng.choice((f"Add up all the whole numbers from {lo} to {lo + rng.randint(10, 90)}.",
                           f"What do the whole numbers {lo} through {lo + rng.randint(10, 90)} add up to?"))
    if form == 4:
        return rng.choice((f"What is {a} times {b} minus {rng.randint(1, 50)}?",
                           f"How many minutes are there in {b} hours and {a % 60} minutes?",
                           f"Divide {a * b} by {b}.", f"What is {a} squared?"))
    if form == 5:
        n, p = rng.choice(range(120, 601, 20)), rng.choice((60, 70, 75, 80, 90))
        shop = rng.choice(("A bakery", "A farm stand", "A school kitchen", "A café"))
        thing = rng.choice(("loaves", "pies", "sandwiches", "muffins"))
        return (f"{shop} prepares {n} {thing} a day and sells {p}% of them. The rest are donated. How many "
                f"{thing} are donated each week? {rng.choice(STEPS)}")
    if form == 6:
        hh, mm, h, m = rng.randint(6, 15), rng.choice(range(0, 60, 5)), rng.randint(1, 4), rng.choice(range(5, 60, 5))
        w, d = rng.choice((10, 15, 25, 30, 45)), rng.choice((5, 15, 20))
        return (f"A ferry departs at {hh:02d}:{mm:02d} and the crossing lasts {h} hours and {m} minutes. After a "
                f"{w}-minute stop it sails back, and the return crossing is {d} minutes longer. When does it get "
                f"back? {rng.choice(STEPS)}")
    if form == 7:
        w, length, t = rng.randint(3, 9), rng.randint(3, 12), rng.choice((25, 50))
        return (f"A floor is {w} metres long and {length} metres wide. Square tiles measure {t} cm on each side. How "
                f"many tiles cover the floor, and how many boxes of {rng.choice((10, 20, 25))} tiles must be bought? "
                f"{rng.choice(STEPS)}")
    if form == 8:
        x, y = rng.randint(40, 120), rng.randint(3, 8)
        z, u = rng.randint(0, x // 2), y + rng.randint(2, 6)
        return (f"{who} has {x} euros and puts away {y} euros a week. {other} starts with {z} euros and puts away "
                f"{u} euros a week. In which week does {other} first have more than {who}? {rng.choice(STEPS)}")
    if form == 9:
        n, price, p = rng.randint(3, 7), rng.choice((2.5, 3.2, 4.75, 6.0, 12.5)), rng.choice((10, 15, 20))
        return (f"{who} buys {n} notebooks at {price} dollars each and a bag for {rng.randint(8, 30)} dollars. "
                f"The shop takes {p}% off the whole bill. How much does {who} pay? {rng.choice(STEPS)}")
    if form == 10:
        scores = [rng.randint(50, 100) for _ in range(rng.randint(3, 5))]
        return (f"{who}'s test scores are {', '.join(map(str, scores[:-1]))} and {scores[-1]}. What score is needed "
                f"on the next test for an average of {rng.choice((75, 80, 85))}? {rng.choice(STEPS)}")
    people, serves = rng.randint(6, 20), rng.choice((2, 4))
    return (f"A recipe for {serves} people needs {rng.randint(150, 400)} g of flour and {rng.randint(1, 3)} eggs. "
            f"How much of each is needed for {people} people? {rng.choice(STEPS)}")


# ---------------------------------------------------------------- creative
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


# ---------------------------------------------------------------- translation
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


# ---------------------------------------------------------------- the set
def instruction(kind: str, rng: random.Random, texts: list[str]) -> str:
    if kind == "summarise":
        return summarise(rng, texts)
    if kind == "passage-qa":
        return passage_qa(rng, texts)
    return {"code": code, "edit": edit, "structured": structured, "arithmetic": arithmetic,
            "creative": creative, "translation": translation}[kind](rng)


def build(n: int, texts: list[str], seed: int = SEED) -> list[str]:
    """n distinct instructions, kind i mod 8 for the i-th; deterministic for (n, texts, seed).
    A kind whose templates run out of new instructions is skipped from then on."""
    rng = random.Random(seed)
    seen: dict[str, None] = {}
    misses = dict.fromkeys(KINDS, 0)
    i = 0
    while len(seen) < n:
        live = [k for k in KINDS if misses[k] < 200]
        if not live:
            raise ValueError(f"only {len(seen)} distinct instructions")
        kind = live[i % len(live)]
        text = instruction(kind, rng, texts)
        if text in seen:
            misses[kind] += 1
            continue
        seen[text] = None
        i += 1
    return list(seen)


def kind_passages(folder: Path, tokenizer) -> list[str]:
    """The target's explanatory answers (chat_instructions.answer_passages' choice) from the
    committed shards made before this set (below FIRST_SHARD), so the set stays the same as
    its own shards are added."""
    import tempfile

    from specdec.train.smollm2.chat_instructions import answer_passages
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(folder.glob("shard_*.tokens.npz")):
            if int(path.name.split("_")[1].split(".")[0]) < FIRST_SHARD:
                (Path(tmp) / path.name).symlink_to(path.resolve())
        return answer_passages(Path(tmp), tokenizer)
