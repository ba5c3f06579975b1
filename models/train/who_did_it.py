"""The "who did it?" corpus: bilingual (Chinese, English) sentences in which an agent does
something to a patient, labelled with the agent. It is the seed article's 我打你 / 你打我 turned
into a task: the same words in a different order name a different agent, so a model can only
solve it with a sense of order.

Variety: ten people and pronouns, eight verbs, time and place fillers, the aspect markers 了 and
过, the future (会 / will), and five constructions, two of which put the patient first:

    zh-active   [昨天]小明[在学校]打了小红          agent first
    zh-ba       小明把小红打了                      agent first, patient before the verb
    zh-bei      小红被小明打了                      被 passive: patient first
    en-active   [yesterday] Xiaoming hit Xiaohong [at school]
    en-passive  Xiaohong was hit by Xiaoming        patient first

English is lower case except names and "I", without punctuation, so that swapping two words
swaps tokens and nothing else (pronoun case, I/me, and was/were agreement are the exceptions,
and they are real English).

The split is by agent-verb-patient combination: a held-out combination (and its swap, so that a
held-out sentence's swapped twin is held out too) never appears in training, in any language or
construction. Everything is a function of the seed.
"""
import random

# (label, Chinese, English subject form, English object form, English person for was/were)
PEOPLE = [
    ("我/I", "我", "I", "me", "I"),
    ("你/you", "你", "you", "you", "you"),
    ("他/he", "他", "he", "him", "3"),
    ("她/she", "她", "she", "her", "3"),
    ("小明/Xiaoming", "小明", "Xiaoming", "Xiaoming", "3"),
    ("小红/Xiaohong", "小红", "Xiaohong", "Xiaohong", "3"),
    ("老师/teacher", "老师", "the teacher", "the teacher", "3"),
    ("妈妈/mom", "妈妈", "mom", "mom", "3"),
    ("爸爸/dad", "爸爸", "dad", "dad", "3"),
    ("小狗/dog", "小狗", "the dog", "the dog", "3"),
]
LABELS = [person[0] for person in PEOPLE]

# (Chinese, English base form, English past = past participle)
VERBS = [
    ("打", "hit", "hit"),
    ("爱", "love", "loved"),
    ("帮", "help", "helped"),
    ("骂", "scold", "scolded"),
    ("追", "chase", "chased"),
    ("叫", "call", "called"),
    ("推", "push", "pushed"),
    ("踢", "kick", "kicked"),
]
# 把 needs a verb that does something to its object: 小明把小红打了, not *小明把小红爱了.
BA_VERBS = {"打", "骂", "推", "踢"}

ZH_PAST_TIMES = ["昨天", "今天", "刚才", "早上", "晚上"]
ZH_FUTURE_TIMES = ["明天", "明天早上", "明天晚上"]
ZH_PLACES = ["在学校", "在家", "在公园", "在路上"]
EN_PAST_TIMES = ["yesterday", "today", "last night", "this morning"]
EN_FUTURE_TIMES = ["tomorrow", "tomorrow morning", "tomorrow night"]
EN_PLACES = ["at school", "at home", "in the park", "on the road"]

CONSTRUCTIONS = ["zh-active", "zh-ba", "zh-bei", "en-active", "en-passive"]
# The three groups the model cards report: who comes first is what tells them apart.
GROUPS = {"zh-active": "active", "zh-ba": "active", "en-active": "active",
          "zh-bei": "被-passive", "en-passive": "English passive"}

# The seed article's example is always held out, so the shipped models never trained on it.
SEED_TRIPLE = (0, 0, 1)  # 我 打 你


def constructions_for(verb):
    return [c for c in CONSTRUCTIONS if c != "zh-ba" or VERBS[verb][0] in BA_VERBS]


def draw_frame(rng, construction):
    """The choices that are not agent, verb or patient: shared by a sentence and its swap."""
    future = construction != "zh-ba" and rng.random() < 0.2
    chinese = construction.startswith("zh")
    times = (ZH_FUTURE_TIMES if future else ZH_PAST_TIMES) if chinese else (
        EN_FUTURE_TIMES if future else EN_PAST_TIMES)
    places = ZH_PLACES if chinese else EN_PLACES
    frame = {
        "future": future,
        "time": rng.choice(times) if (future and chinese) or rng.random() < 0.5 else None,
        "time_first": rng.random() < 0.5,
        "place": rng.choice(places) if rng.random() < 0.4 else None,
        "aspect": None,
    }
    if chinese and not future:
        roll = rng.random()
        frame["aspect"] = "了" if roll < 0.6 else "过" if roll < 0.7 else None
    if construction == "zh-ba":
        frame["aspect"] = "了"  # 把 wants a result: 小明把小红打了
    return frame


def zh_sentence(construction, agent, verb, patient, frame):
    a, v, p = PEOPLE[agent][1], VERBS[verb][0], PEOPLE[patient][1]
    will = "会" if frame["future"] else ""
    aspect = frame["aspect"] or ""
    if construction == "zh-active":
        core = f"{v}{aspect}{p}"
        subject = a
    elif construction == "zh-ba":
        core = f"把{p}{v}了"
        subject = a
    else:  # zh-bei: the patient is the subject, the agent follows 被
        done = "" if frame["future"] else "过" if aspect == "过" else "了"
        core = f"被{a}{v}{done}"
        subject = p
    # 会 comes before the place: 小狗明天会在公园帮我
    place = frame["place"] or ""
    time = frame["time"] or ""
    if time and frame["time_first"]:
        return f"{time}{subject}{will}{place}{core}"
    return f"{subject}{time}{will}{place}{core}"


def en_sentence(construction, agent, verb, patient, frame):
    _, base, past = VERBS[verb]
    if construction == "en-active":
        subject, obj = PEOPLE[agent][2], PEOPLE[patient][3]
        core = f"{subject} {'will ' + base if frame['future'] else past} {obj}"
    else:  # en-passive: the patient is the subject, the agent follows "by"
        subject, person, obj = PEOPLE[patient][2], PEOPLE[patient][4], PEOPLE[agent][3]
        be = "will be" if frame["future"] else "were" if person == "you" else "was"
        core = f"{subject} {be} {past} by {obj}"
    words = []
    if frame["time"] and frame["time_first"]:
        words.append(frame["time"])
    words.append(core)
    if frame["place"]:
        words.append(frame["place"])
    if frame["time"] and not frame["time_first"]:
        words.append(frame["time"])
    return " ".join(words)


def sentence(construction, agent, verb, patient, frame):
    make = zh_sentence if construction.startswith("zh") else en_sentence
    return make(construction, agent, verb, patient, frame)


def all_triples():
    n = len(PEOPLE)
    return [(a, v, p) for a in range(n) for v in range(len(VERBS)) for p in range(n) if a != p]


def split_triples(seed, heldout_pairs):
    """Held-out agent-verb-patient combinations, in swapped pairs (a v p, p v a): the seed's
    我打你 / 你打我 and `heldout_pairs - 1` more drawn with the seed."""
    pairs = sorted({(min(a, p), v, max(a, p)) for a, v, p in all_triples()})
    rng = random.Random(seed)
    seed_pair = (min(SEED_TRIPLE[0], SEED_TRIPLE[2]), SEED_TRIPLE[1],
                 max(SEED_TRIPLE[0], SEED_TRIPLE[2]))
    others = [pair for pair in pairs if pair != seed_pair]
    rng.shuffle(others)
    chosen = [seed_pair] + sorted(others[: heldout_pairs - 1])
    heldout = set()
    for a, v, p in chosen:
        heldout.update({(a, v, p), (p, v, a)})
    return chosen, heldout


def make_corpus(seed=20260812, heldout_pairs=30, train_variants=8, heldout_variants=8):
    """Returns (train, heldout): lists of dicts with text, label, construction, and for held-out
    sentences the pair id and variant (variant 0 is the small golden set)."""
    pairs, heldout_triples = split_triples(seed, heldout_pairs)
    rng = random.Random(seed + 1)
    train = []
    for a, v, p in all_triples():
        if (a, v, p) in heldout_triples:
            continue
        for construction in constructions_for(v):
            for _ in range(train_variants):
                frame = draw_frame(rng, construction)
                train.append({"text": sentence(construction, a, v, p, frame), "label": a,
                              "construction": construction})
    rng.shuffle(train)

    rng = random.Random(seed + 2)
    heldout = []
    for pair_index, (a, v, p) in enumerate(pairs):
        for construction in constructions_for(v):
            for variant in range(heldout_variants):
                frame = draw_frame(rng, construction)
                if (a, v, p) == SEED_TRIPLE and variant == 0 and construction.endswith("active"):
                    # the seed article's own sentences: 我打你 / 你打我, I hit you / you hit me
                    frame = dict(frame, future=False, time=None, place=None, aspect=None)
                pair_id = f"{pair_index}:{construction}:{variant}"
                for agent, patient in ((a, p), (p, a)):
                    heldout.append({
                        "text": sentence(construction, agent, v, patient, frame),
                        "label": agent, "construction": construction,
                        "pair": pair_id, "variant": variant,
                    })
    return train, heldout


if __name__ == "__main__":
    train, heldout = make_corpus()
    print(len(train), "training sentences,", len(heldout), "held-out")
    for item in heldout[:20] + train[:20]:
        print(LABELS[item["label"]], item["construction"], item["text"])
