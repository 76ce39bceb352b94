"""Code requests: functions, classes, command-line tools, SQL, short how-tos.
One kind of the chat-kind training set (kind_instructions.py)."""
from __future__ import annotations

import random

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
