"""Write the recall datasets under tests/data: a few weeks (recall_weeks.json) and many months (recall_long.json).

Planted facts (English and Chinese) sit among small talk that reuses the same words, long generic
replies, facts that change later, facts spread over several days, and questions whose answer was
never said. Deterministic: the same files every run.

    python bench/make_recall_datasets.py
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "data"

# (fact said by the user, question, answer, category); {d} in a question is filled with nothing
FACTS = [
    ("My sister Anna just moved to Lisbon for a job at a bakery.", "Which city did my sister move to?", "Lisbon", "single"),
    ("Our dog is called Biscuit, he is a beagle.", "What is the name of our dog?", "Biscuit", "single"),
    ("I'm allergic to shellfish, so no shrimp for me.", "What food allergy do I have?", "shellfish", "single"),
    ("My favourite author is Ursula K. Le Guin.", "Who is my favourite author?", "Le Guin", "single"),
    ("The wifi router password hint is the name of my first cat, Pixel.", "What was my first cat called?", "Pixel", "single"),
    ("I work as a radiographer at the city hospital.", "What is my job?", "radiographer", "single"),
    ("My partner Sam's birthday is on the 14th of August.", "When is Sam's birthday?", "14th of August", "single"),
    ("I drive an old green Volvo estate.", "What car do I drive?", "Volvo", "single"),
    ("My grandmother taught me to bake rye bread with caraway.", "What did my grandmother teach me to bake?", "rye bread", "single"),
    ("I'm learning Portuguese on the train every morning.", "Which language am I learning?", "Portuguese", "single"),
    ("I keep my spare house key with the neighbour, Mrs Okafor.", "Who has my spare house key?", "Okafor", "single"),
    ("My blood pressure medicine is amlodipine, one tablet each morning.", "Which medicine do I take for blood pressure?", "amlodipine", "single"),
    ("Sam and I got married in a small chapel in Galway.", "Where did Sam and I get married?", "Galway", "single"),
    ("我最喜欢的茶是铁观音。", "我最喜欢什么茶？", "铁观音", "chinese"),
    ("我的牙医姓王，诊所在人民路。", "我的牙医姓什么？", "王", "chinese"),
    ("我女儿在学小提琴，每周六上课。", "我女儿在学什么乐器？", "小提琴", "chinese"),
    ("我们家的猫叫年糕，是一只橘猫。", "我们家的猫叫什么名字？", "年糕", "chinese"),
]
# (first statement, later statement, question, final answer)
UPDATES = [
    ("I'm training for a 10k race in the spring.", "Change of plan: I signed up for the half marathon instead of the 10k.",
     "Which race am I training for?", "half marathon"),
    ("My manager at work is called Priya.", "Priya left the company; my new manager is Tom.", "Who is my manager at work?", "Tom"),
    ("We live in a flat on Elm Street.", "We finally moved house, the new place is on Harbour Road.", "Which street do we live on?", "Harbour Road"),
    ("I'm reading Dune at the moment.", "Finished Dune, now reading The Left Hand of Darkness.", "Which book am I reading now?", "Left Hand of Darkness"),
]
# several statements on different days, one question needing all of them
MULTI = [
    (["I started taking piano lessons.", "I also picked up the ukulele, just for fun.", "And now I'm trying the cello too, maybe too many instruments!"],
     "Which instruments am I learning?", "cello", "multi"),
    (["We booked flights to Japan for October.", "For the Japan trip I reserved a ryokan in Kyoto.", "Japan trip: we'll end with three nights in Osaka."],
     "What are our plans for the Japan trip?", "Osaka", "multi"),
    (["I planted tomatoes in the garden.", "The garden now also has courgettes.", "Added runner beans to the garden beds."],
     "What is growing in my garden?", "runner beans", "multi"),
]
# something happened on a day; the question asks when
DATED = [
    ("I ran my first half marathon today, 2 hours 5 minutes!", "When did I run my first half marathon?"),
    ("Got my driving licence renewed today.", "When did I renew my driving licence?"),
    ("Today I adopted a rescue cat from the shelter.", "When did I adopt the rescue cat?"),
]
ABSENT = [
    "What is my brother's name?", "Which football team do I support?", "What is my blood type?",
    "我弟弟住在哪里？", "Where did I go to university?",
]
SMALL_TALK = [
    "My sister called again, we just chatted about nothing much.", "The dog was muddy after the walk.",
    "Work at the hospital was busy today.", "I'm tired, long day.", "The train was late again this morning.",
    "Had a nice dinner with Sam.", "I should read more books.", "The weather is grey again.",
    "Cooking something simple tonight.", "Watched a film about a marathon runner.", "My manager sent a lot of emails.",
    "The garden needs watering.", "Thinking about a trip somewhere warm.", "Practised a bit of music tonight.",
    "今天天气不错。", "晚上喝了点茶。", "猫今天很乖。", "工作有点累。", "I went for a run in the park.",
    "Talked to my sister about her job.", "We walked the dog by the river.", "The car needs a wash.",
]
# small talk that names the same things the questions ask about, without answering them
TOPICS = [
    "my sister", "the dog", "food allergies", "my favourite author", "the old cat", "my job", "Sam's birthday",
    "the car", "my grandmother", "learning a language", "the race", "my manager", "our street", "the book I'm reading",
    "music lessons", "the Japan trip", "the garden", "my driving licence", "the rescue shelter", "the marathon",
    "我的茶", "牙医", "女儿的课", "家里的猫",
]
TOPIC_PHRASES = [
    "Thought about {t} again today, nothing new.", "{t} came up in conversation at lunch.",
    "Not much to report about {t}.", "I keep meaning to sort things out with {t}.", "Any ideas about {t}? Just wondering.",
    "Remind me later about {t}, maybe.",
]
REPLY_OPENERS = [
    "That sounds like a lot to handle. ", "Thanks for telling me. ", "I hear you. ", "That's lovely to hear. ",
]
REPLY_FILLER = (
    "It's good to take care of yourself, to make time for the people you love, for your work, your garden, "
    "your music and your reading, and to rest when the day is long. If you want, tell me more about your sister, "
    "your dog, your job at the hospital, the car, the race or the trip, and we can think it through together."
)


def _reply(rng: random.Random, long: bool) -> str:
    return rng.choice(REPLY_OPENERS) + (REPLY_FILLER if long else "Tell me more whenever you like.")


def build(name: str, start: date, days: int, chatter: tuple[int, int], long_reply_share: float, seed: int,
          repeats: int = 1, topical: tuple[int, int] = (0, 1)) -> dict:
    """`repeats` > 1 plants every fact again later with other wording noise (more distractors)."""
    rng = random.Random(seed)
    plan: dict[int, list[tuple[str, str | None]]] = {d: [] for d in range(days)}
    questions = []
    refs = 0

    def place(day: int, text: str) -> str:
        nonlocal refs
        refs += 1
        ref = f"p{refs}"
        plan[day].append((text, ref))
        return ref

    last = days - 1
    for text, question, answer, category in FACTS:
        day = rng.randrange(0, int(days * 0.8))
        ref = place(day, text)
        questions.append({"question": question, "answer": answer, "evidence": [ref], "category": category, "_day": day})
    for first, later, question, answer in UPDATES:
        d1 = rng.randrange(0, days // 3)
        d2 = rng.randrange(days // 2, int(days * 0.9))
        place(d1, first)
        ref = place(d2, later)
        questions.append({"question": question, "answer": answer, "evidence": [ref], "category": "updated", "_day": d2})
    for texts, question, answer, category in MULTI:
        chosen = sorted(rng.sample(range(0, int(days * 0.9)), len(texts)))
        ids = [place(d, t) for d, t in zip(chosen, texts)]
        questions.append({"question": question, "answer": answer, "evidence": ids, "category": category, "_day": chosen[-1]})
    for text, question in DATED:
        day = rng.randrange(0, int(days * 0.9))
        ref = place(day, text)
        answer = (start + timedelta(days=day)).isoformat()
        questions.append({"question": question, "answer": answer, "evidence": [ref], "category": "date", "_day": day})
    for question in ABSENT:
        questions.append({"question": question, "answer": "", "evidence": [], "category": "absent", "_day": last})

    out_days = []
    for index in range(days):
        turns = []
        minute = 8 * 60 + rng.randrange(0, 120)
        chat = rng.sample(SMALL_TALK, rng.randint(*chatter))
        chat += [rng.choice(TOPIC_PHRASES).format(t=rng.choice(TOPICS)) for _ in range(rng.randint(*topical))]
        items = [(t, None) for t in chat] + plan[index]
        rng.shuffle(items)
        for text, ref in items:
            turn = {"role": "user", "text": text, "time": f"{minute // 60:02d}:{minute % 60:02d}"}
            if ref:
                turn["ref"] = ref
            turns.append(turn)
            minute += rng.randrange(1, 6)
            turns.append({"role": "assistant", "text": _reply(rng, rng.random() < long_reply_share),
                          "time": f"{minute // 60:02d}:{minute % 60:02d}"})
            minute += rng.randrange(2, 30)
        if turns:
            out_days.append({"date": (start + timedelta(days=index)).isoformat(), "turns": turns})
    for question in questions:
        asked = min(last + 1, question.pop("_day") + rng.randrange(7, 60))
        question["asked_on"] = (start + timedelta(days=max(asked, last + 1 if repeats > 1 else asked))).isoformat()
    return {"name": name, "days": out_days, "questions": questions}


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    weeks = build("recall-weeks", date(2024, 3, 1), 24, (1, 3), 0.2, seed=7)
    long = build("recall-long", date(2023, 9, 1), 200, (2, 4), 0.5, seed=11, repeats=2, topical=(1, 3))
    for name, data in (("recall_weeks.json", weeks), ("recall_long.json", long)):
        path = OUT / name
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        turns = sum(len(d["turns"]) for d in data["days"])
        print(f"{path}: {len(data['days'])} days, {turns} turns, {len(data['questions'])} questions")


if __name__ == "__main__":
    main()
