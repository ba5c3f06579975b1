"""The "who did it?" corpus: bilingual (Chinese, English) sentences in which an agent does
something to a patient, labelled with the agent. It is the seed article's 我打你 / 你打我 turned
into a task: the same words in a different order name a different agent, so a model can only
solve it with a sense of order.

Variety: 42 people, pronouns, family, names and animals (the labels), 42 verbs, time, place,
manner and "after class" fillers, the aspect markers 了 and 过, the future (会 / will), and five
constructions, two of which put the patient first:

    zh-active   [昨天][下午]小明[在公园里]追了小红      agent first
    zh-ba       小明把小红打了                          agent first, patient before the verb
    zh-bei      小红被小明打了                          被 passive: patient first
    en-active   [yesterday] Xiaoming chased Xiaohong [in the park]
    en-passive  Xiaohong was chased by Xiaoming         patient first

A sentence is a list of words. Chinese words are joined without spaces, English ones with a
space; every Chinese word (single characters such as 狗 and 人, and words such as 小明, 老师,
公园) is one tokenizer piece and every English word is one piece with ▁ between them, so a
sentence's length in tokens, <s> and </s> included, is known here: len(words) + 2 in Chinese,
2·len(words) + 1 in English. Training and held-out sentences have at most MAX_TRAIN_TOKENS;
extrapolation sentences (stacked fillers) are longer, up to MAX_EXTRAPOLATION_TOKENS.

English is lower case except names and "I", without punctuation, so that swapping two words
swaps tokens and nothing else (pronoun case, I/me, she/her, we/us, and was/were agreement are
the exceptions, and they are real English).

The split is by agent-verb-patient combination: a held-out combination (and its swap, so that a
held-out sentence's swapped twin is held out too) never appears in training, in any language or
construction. Everything is a function of the seed.
"""
import random

# Training sentences, held-out sentences and the models' position tables: sentences of at most
# MAX_TRAIN_TOKENS tokens (<s> and </s> included) are all training sees; the position tables
# (and the extrapolation set) reach 4x that.
MAX_TRAIN_TOKENS = 16
MAX_EXTRAPOLATION_TOKENS = 4 * MAX_TRAIN_TOKENS

# (label, Chinese, English subject form, English object form, English person for was/were:
# "I", "you", "3" (was), "pl" (were))
PEOPLE = [
    # pronouns
    ("我/I", "我", "I", "me", "I"),
    ("你/you", "你", "you", "you", "you"),
    ("他/he", "他", "he", "him", "3"),
    ("她/she", "她", "she", "her", "3"),
    ("我们/we", "我们", "we", "us", "pl"),
    ("你们/you all", "你们", "you all", "you all", "pl"),
    ("他们/they", "他们", "they", "them", "pl"),
    # names
    ("小明/Xiaoming", "小明", "Xiaoming", "Xiaoming", "3"),
    ("小红/Xiaohong", "小红", "Xiaohong", "Xiaohong", "3"),
    ("小刚/Xiaogang", "小刚", "Xiaogang", "Xiaogang", "3"),
    ("小丽/Xiaoli", "小丽", "Xiaoli", "Xiaoli", "3"),
    ("小华/Xiaohua", "小华", "Xiaohua", "Xiaohua", "3"),
    ("张三/Zhang San", "张三", "Zhang San", "Zhang San", "3"),
    ("李四/Li Si", "李四", "Li Si", "Li Si", "3"),
    # family
    ("妈妈/mom", "妈妈", "mom", "mom", "3"),
    ("爸爸/dad", "爸爸", "dad", "dad", "3"),
    ("爷爷/grandpa", "爷爷", "grandpa", "grandpa", "3"),
    ("奶奶/grandma", "奶奶", "grandma", "grandma", "3"),
    ("哥哥/big brother", "哥哥", "big brother", "big brother", "3"),
    ("姐姐/big sister", "姐姐", "big sister", "big sister", "3"),
    ("弟弟/little brother", "弟弟", "little brother", "little brother", "3"),
    ("妹妹/little sister", "妹妹", "little sister", "little sister", "3"),
    ("叔叔/uncle", "叔叔", "uncle", "uncle", "3"),
    ("阿姨/aunt", "阿姨", "aunt", "aunt", "3"),
    # people
    ("老师/teacher", "老师", "the teacher", "the teacher", "3"),
    ("医生/doctor", "医生", "the doctor", "the doctor", "3"),
    ("学生/student", "学生", "the student", "the student", "3"),
    ("司机/driver", "司机", "the driver", "the driver", "3"),
    ("邻居/neighbor", "邻居", "the neighbor", "the neighbor", "3"),
    ("警察/policeman", "警察", "the policeman", "the policeman", "3"),
    ("护士/nurse", "护士", "the nurse", "the nurse", "3"),
    ("人/man", "人", "the man", "the man", "3"),
    # animals
    ("狗/dog", "狗", "the dog", "the dog", "3"),
    ("猫/cat", "猫", "the cat", "the cat", "3"),
    ("鸟/bird", "鸟", "the bird", "the bird", "3"),
    ("马/horse", "马", "the horse", "the horse", "3"),
    ("牛/cow", "牛", "the cow", "the cow", "3"),
    ("小狗/puppy", "小狗", "the puppy", "the puppy", "3"),
    ("小猫/kitten", "小猫", "the kitten", "the kitten", "3"),
    ("老虎/tiger", "老虎", "the tiger", "the tiger", "3"),
    ("猴子/monkey", "猴子", "the monkey", "the monkey", "3"),
    ("兔子/rabbit", "兔子", "the rabbit", "the rabbit", "3"),
]
LABELS = [person[0] for person in PEOPLE]
# Pronouns with English case (I/me, he/him, she/her, we/us, they/them) and without (you).
PRONOUNS = {0, 1, 2, 3, 4, 5, 6}
CASED_PRONOUNS = {0, 2, 3, 4, 6}

# (Chinese, English base form, English past, English past participle)
VERBS = [
    ("打", "hit", "hit", "hit"),
    ("爱", "love", "loved", "loved"),
    ("帮", "help", "helped", "helped"),
    ("骂", "scold", "scolded", "scolded"),
    ("追", "chase", "chased", "chased"),
    ("叫", "call", "called", "called"),
    ("推", "push", "pushed", "pushed"),
    ("踢", "kick", "kicked", "kicked"),
    ("咬", "bite", "bit", "bitten"),
    ("抱", "hold", "held", "held"),
    ("亲", "kiss", "kissed", "kissed"),
    ("看", "watch", "watched", "watched"),
    ("找", "look for", "looked for", "looked for"),
    ("等", "wait for", "waited for", "waited for"),
    ("打扰", "disturb", "disturbed", "disturbed"),
    ("拉", "pull", "pulled", "pulled"),
    ("撞", "bump into", "bumped into", "bumped into"),
    ("抓", "catch", "caught", "caught"),
    ("喂", "feed", "fed", "fed"),
    ("骗", "trick", "tricked", "tricked"),
    ("欺负", "bully", "bullied", "bullied"),
    ("批评", "criticize", "criticized", "criticized"),
    ("表扬", "praise", "praised", "praised"),
    ("感谢", "thank", "thanked", "thanked"),
    ("保护", "protect", "protected", "protected"),
    ("照顾", "look after", "looked after", "looked after"),
    ("相信", "believe", "believed", "believed"),
    ("喜欢", "like", "liked", "liked"),
    ("讨厌", "hate", "hated", "hated"),
    ("认识", "know", "knew", "known"),
    ("想念", "miss", "missed", "missed"),
    ("原谅", "forgive", "forgave", "forgiven"),
    ("邀请", "invite", "invited", "invited"),
    ("教", "teach", "taught", "taught"),
    ("问", "ask", "asked", "asked"),
    ("嘲笑", "mock", "mocked", "mocked"),
    ("吓", "scare", "scared", "scared"),
    ("摸", "touch", "touched", "touched"),
    ("拍", "pat", "patted", "patted"),
    ("跟", "follow", "followed", "followed"),
    ("踩", "step on", "stepped on", "stepped on"),
    ("选", "choose", "chose", "chosen"),
]
# 把 needs a verb that does something to its object: 小明把小红打了, not *小明把小红爱了.
BA_VERBS = {"打", "骂", "推", "踢", "咬", "拉", "撞", "抓", "骗", "吓", "踩", "批评", "欺负"}

# Fillers, as lists of words (Chinese) or space-separated words (English).
ZH_PAST_TIMES = ["昨天", "今天", "前天", "刚才", "后来", "早上", "上午", "中午", "下午", "晚上",
                 "昨天 早上", "昨天 下午", "昨天 晚上", "今天 上午", "今天 中午", "前天 晚上"]
ZH_FUTURE_TIMES = ["明天", "后天", "明天 早上", "明天 下午", "明天 晚上", "后天 上午"]
EN_PAST_TIMES = ["yesterday", "today", "earlier", "just now", "last night", "this morning",
                 "this afternoon", "yesterday morning", "yesterday afternoon",
                 "yesterday evening"]
EN_FUTURE_TIMES = ["tomorrow", "tomorrow morning", "tomorrow afternoon", "tomorrow night",
                   "next week"]
# (Chinese place noun, English place phrase)
PLACES = [("学校", "at school"), ("家", "at home"), ("公园", "in the park"),
          ("路上", "on the road"), ("操场", "on the playground"), ("教室", "in the classroom"),
          ("医院", "at the hospital"), ("商店", "in the shop"), ("河边", "by the river")]
ZH_PLACE_SUFFIXES = {"学校": ["", "里"], "家": ["", "里"], "公园": ["", "里"], "路上": [""],
                     "操场": ["", "上"], "教室": ["", "里"], "医院": ["", "里"],
                     "商店": ["", "里"], "河边": [""]}
# 在学校旁边的公园里 (by the school, the park)
ZH_NEAR = ["旁边", "外面", "后面"]
# Manner adverbs: Chinese before the verb phrase, English at the end of the clause.
ZH_MANNERS = ["突然", "又", "偷偷地", "生气地", "高兴地", "故意", "立刻"]
EN_MANNERS = ["suddenly", "again", "secretly", "angrily", "happily", "on purpose", "at once"]
# Sentence-initial circumstance clauses.
ZH_CLAUSES = ["下课 以后", "放学 以后", "吃 完 饭 以后", "下雨 的 时候"]
EN_CLAUSES = ["after class", "after school", "after dinner", "in the rain"]

CONSTRUCTIONS = ["zh-active", "zh-ba", "zh-bei", "en-active", "en-passive"]
# The three groups the model cards report: who comes first is what tells them apart.
GROUPS = {"zh-active": "active", "zh-ba": "active", "en-active": "active",
          "zh-bei": "被-passive", "en-passive": "English passive"}

# The seed article's example is always held out, so the shipped models never trained on it.
SEED_TRIPLE = (0, 0, 1)  # 我 打 你
# English pronoun pairs always held out (with their swaps), so that the held-out set has
# actives and passives with pronouns in both cases: she hit him / he hit her, we were ... by them.
PRONOUN_PAIRS = [(3, 2), (4, 6), (0, 2), (3, 0), (2, 4), (6, 3), (0, 6), (4, 3), (5, 2),
                 (1, 3)]


def chinese_words():
    """Every Chinese word the corpus uses: the tokenizer makes each one piece."""
    words = {person[1] for person in PEOPLE} | {verb[0] for verb in VERBS}
    for phrase in (ZH_PAST_TIMES + ZH_FUTURE_TIMES + ZH_MANNERS + ZH_CLAUSES + ZH_NEAR
                   + list(ZH_PLACE_SUFFIXES)):
        words.update(phrase.split())
    words.update(s for suffixes in ZH_PLACE_SUFFIXES.values() for s in suffixes if s)
    words.update(["在", "把", "被", "了", "过", "会", "的"])
    return words


def constructions_for(verb):
    return [c for c in CONSTRUCTIONS if c != "zh-ba" or VERBS[verb][0] in BA_VERBS]


def token_count(construction, words):
    """Tokens the model sees, <s> and </s> included."""
    if construction.startswith("zh"):
        return len(words) + 2
    return 2 * len(words) + 1


def draw_place(rng, chinese, near):
    noun, english = rng.choice(PLACES)
    if near and chinese:  # 在学校旁边的公园里 (English: "in the park next to the school" would
        # not fit a training sentence, so English stacks two places instead)
        noun = rng.choice([p for p, _ in PLACES if p not in ("路上", "河边")])
        other = rng.choice([p for p, _ in PLACES if p not in (noun, "路上", "河边", "家")])
        relation = rng.choice(ZH_NEAR)
        if chinese:
            return ["在", noun, relation, "的", other] + [
                s for s in [rng.choice(ZH_PLACE_SUFFIXES[other])] if s]
    if chinese:
        return ["在", noun] + [s for s in [rng.choice(ZH_PLACE_SUFFIXES[noun])] if s]
    return english.split()


def draw_frame(rng, construction, long=False):
    """The choices that are not agent, verb or patient: shared by a sentence and its swap.
    `long`: stack more fillers (the extrapolation set)."""
    future = construction != "zh-ba" and rng.random() < 0.2
    chinese = construction.startswith("zh")
    times = (ZH_FUTURE_TIMES if future else ZH_PAST_TIMES) if chinese else (
        EN_FUTURE_TIMES if future else EN_PAST_TIMES)
    manners = ZH_MANNERS if chinese else EN_MANNERS
    clauses = ZH_CLAUSES if chinese else EN_CLAUSES
    p = (lambda x: 0.9) if long else (lambda x: x)  # noqa: E731
    frame = {
        "future": future,
        "time": rng.choice(times).split() if (future and chinese) or rng.random() < p(0.45)
        else None,
        "time_first": rng.random() < 0.5,
        "places": [], "manners": [], "clauses": [], "aspect": None,
    }
    if rng.random() < p(0.4):
        frame["places"].append(draw_place(rng, chinese, near=rng.random() < (0.7 if long else 0.15)))
    if long and not chinese:
        taken = [" ".join(place) for place in frame["places"]]
        more = rng.sample([e for _, e in PLACES if e not in taken], rng.choice([0, 1, 2]))
        frame["places"] += [e.split() for e in more]
    count = rng.choice([1, 2, 3] if chinese else [1, 2, 3, 4]) if long else int(
        rng.random() < 0.25)
    frame["manners"] = [m.split() for m in rng.sample(manners, count)]
    count = rng.choice([1, 2]) if long else int(rng.random() < 0.15)
    frame["clauses"] = [c.split() for c in rng.sample(clauses, count)]
    if chinese and not future:
        roll = rng.random()
        frame["aspect"] = "了" if roll < 0.6 else "过" if roll < 0.7 else None
    if construction == "zh-ba":
        frame["aspect"] = "了"  # 把 wants a result: 小明把小红打了
    return frame


def zh_words(construction, agent, verb, patient, frame):
    a, v, p = PEOPLE[agent][1], VERBS[verb][0], PEOPLE[patient][1]
    aspect = [frame["aspect"]] if frame["aspect"] else []
    if construction == "zh-active":
        core, subject = [v] + aspect + [p], a
    elif construction == "zh-ba":
        core, subject = ["把", p, v, "了"], a
    else:  # zh-bei: the patient is the subject, the agent follows 被
        done = [] if frame["future"] else ["过"] if aspect == ["过"] else ["了"]
        core, subject = ["被", a, v] + done, p
    will = ["会"] if frame["future"] else []
    # 会 comes before the place: 小狗明天会在公园帮我; manners after the place:
    # 小明在公园里突然打了小红
    middle = will + [w for place in frame["places"] for w in place] + [
        w for manner in frame["manners"] for w in manner]
    clauses = [w for clause in frame["clauses"] for w in clause]
    time = frame["time"] or []
    if time and frame["time_first"]:
        return clauses + time + [subject] + middle + core
    return clauses + [subject] + time + middle + core


def en_words(construction, agent, verb, patient, frame):
    _, base, past, participle = VERBS[verb]
    if construction == "en-active":
        subject, obj = PEOPLE[agent][2], PEOPLE[patient][3]
        core = f"{subject} {'will ' + base if frame['future'] else past} {obj}"
    else:  # en-passive: the patient is the subject, the agent follows "by"
        subject, person, obj = PEOPLE[patient][2], PEOPLE[patient][4], PEOPLE[agent][3]
        be = "will be" if frame["future"] else "were" if person in ("you", "pl") else "was"
        core = f"{subject} {be} {participle} by {obj}"
    words = [w for clause in frame["clauses"] for w in clause]
    if frame["time"] and frame["time_first"]:
        words += frame["time"]
    words += core.split()
    words += [w for place in frame["places"] for w in place]
    words += [w for manner in frame["manners"] for w in manner]
    if frame["time"] and not frame["time_first"]:
        words += frame["time"]
    return words


def sentence_words(construction, agent, verb, patient, frame):
    make = zh_words if construction.startswith("zh") else en_words
    return make(construction, agent, verb, patient, frame)


def join(construction, words):
    return ("" if construction.startswith("zh") else " ").join(words)


def sentence(construction, agent, verb, patient, frame):
    return join(construction, sentence_words(construction, agent, verb, patient, frame))


def item(construction, agent, verb, patient, frame, **extra):
    words = sentence_words(construction, agent, verb, patient, frame)
    english = construction.startswith("en")
    return dict({"text": join(construction, words), "label": agent,
                 "construction": construction, "tokens": token_count(construction, words),
                 "pronouns": english and agent in PRONOUNS and patient in PRONOUNS,
                 "words": words}, **extra)


def all_triples():
    n = len(PEOPLE)
    return [(a, v, p) for a in range(n) for v in range(len(VERBS)) for p in range(n) if a != p]


def unordered(a, v, p):
    return (min(a, p), v, max(a, p))


def split_triples(seed, heldout_pairs):
    """Held-out agent-verb-patient combinations, in swapped pairs (a v p, p v a): the seed's
    我打你 / 你打我, the English pronoun pairs (verbs drawn with the seed), and more drawn with the
    seed up to `heldout_pairs`. The first GOLDEN_PAIRS of them make the golden set."""
    rng = random.Random(seed)
    chosen = [unordered(*SEED_TRIPLE)]
    for a, p in PRONOUN_PAIRS:
        pair = unordered(a, rng.randrange(len(VERBS)), p)
        if pair not in chosen:
            chosen.append(pair)
    n = len(PEOPLE)
    while len(chosen) < heldout_pairs:
        a, p = rng.sample(range(n), 2)
        pair = unordered(a, rng.randrange(len(VERBS)), p)
        if pair not in chosen:
            chosen.append(pair)
    heldout = set()
    for a, v, p in chosen:
        heldout.update({(a, v, p), (p, v, a)})
    return chosen, heldout


GOLDEN_PAIRS = 48


def draw_fitting(rng, construction, agent, verb, patient, limit):
    """A frame whose sentence has at most `limit` tokens, or None when 50 draws found none
    (an English passive of two two-word people and a two-word verb is already 17 tokens)."""
    for _ in range(50):
        frame = draw_frame(rng, construction)
        words = sentence_words(construction, agent, verb, patient, frame)
        if token_count(construction, words) <= limit:
            return frame
    return None


def make_corpus(seed=20260812, heldout_pairs=160, train_per_triple=2, heldout_variants=6):
    """Returns (train, heldout): lists of dicts with text, label, construction, tokens, and for
    held-out sentences the pair id and variant; variant 0 of the first GOLDEN_PAIRS pairs is the
    golden set ("golden": true)."""
    pairs, heldout_triples = split_triples(seed, heldout_pairs)
    rng = random.Random(seed + 1)
    train = []
    for a, v, p in all_triples():
        if (a, v, p) in heldout_triples:
            continue
        options = constructions_for(v)
        for _ in range(train_per_triple):
            construction = rng.choice(options)
            frame = draw_fitting(rng, construction, a, v, p, MAX_TRAIN_TOKENS)
            if frame is not None:
                train.append(item(construction, a, v, p, frame))
    rng.shuffle(train)

    rng = random.Random(seed + 2)
    heldout = []
    for pair_index, (a, v, p) in enumerate(pairs):
        for construction in constructions_for(v):
            for variant in range(heldout_variants):
                frame = draw_fitting(rng, construction, a, v, p, MAX_TRAIN_TOKENS)
                if frame is None:
                    continue
                if (a, v, p) == unordered(*SEED_TRIPLE) and variant == 0 and \
                        construction.endswith("active"):
                    # the seed article's own sentences: 我打你 / 你打我, I hit you / you hit me
                    frame = dict(frame, future=False, time=None, places=[], manners=[],
                                 clauses=[], aspect=None)
                pair_id = f"{pair_index}:{construction}:{variant}"
                for agent, patient in ((a, p), (p, a)):
                    heldout.append(item(construction, agent, v, patient, frame, pair=pair_id,
                                        variant=variant,
                                        golden=variant == 0 and pair_index < GOLDEN_PAIRS))
    return train, heldout


# Extrapolation: length bins (tokens, <s> and </s> included) and sentences per bin. The first
# bin is the training range, for reference; the others are longer than any training sentence.
EXTRAPOLATION_BINS = [(13, 16), (17, 24), (25, 32), (33, 40), (41, 48), (49, 56), (57, 64)]
EXTRAPOLATION_PER_BIN = 48


def make_extrapolation(seed=20260812, heldout_pairs=160):
    """Held-out combinations (never in training) in sentences with stacked fillers: lengths from
    the training range up to 4x. Swapped pairs, balanced over the bins and, where a bin has
    both, over Chinese and English; Chinese reaches fewer tokens (one token per word, English
    two). Returns a list of dicts {text, label, tokens, construction, pair}."""
    pairs, _ = split_triples(seed, heldout_pairs)
    rng = random.Random(seed + 3)
    candidates = {b: {"zh": [], "en": []} for b in range(len(EXTRAPOLATION_BINS))}
    for attempt in range(30000):
        a, v, p = rng.choice(pairs)
        construction = rng.choice(constructions_for(v))
        frame = draw_frame(rng, construction, long=attempt % 4 != 0)
        if construction.startswith("en") and rng.random() < 0.5:
            # longer English: both a time and a second place or manner
            frame["time"] = frame["time"] or rng.choice(
                EN_FUTURE_TIMES if frame["future"] else EN_PAST_TIMES).split()
        words = sentence_words(construction, a, v, p, frame)
        length = token_count(construction, words)
        for b, (low, high) in enumerate(EXTRAPOLATION_BINS):
            if low <= length <= high:
                candidates[b][construction[:2]].append((construction, a, v, p, frame))
    out = []
    for b in range(len(EXTRAPOLATION_BINS)):
        per_language = {k: v for k, v in candidates[b].items() if v}
        want = EXTRAPOLATION_PER_BIN // 2  # pairs
        take = {k: want // len(per_language) for k in per_language}
        for k in per_language:
            rng.shuffle(per_language[k])
        for language, count in take.items():
            seen = set()
            for construction, a, v, p, frame in per_language[language]:
                if count == 0:
                    break
                text = sentence(construction, a, v, p, frame)
                if text in seen:
                    continue
                seen.add(text)
                count -= 1
                pair_id = f"x{b}:{len(out) // 2}"
                for agent, patient in ((a, p), (p, a)):
                    entry = item(construction, agent, v, patient, frame, pair=pair_id)
                    out.append(entry)
    return out


if __name__ == "__main__":
    train, heldout = make_corpus()
    print(len(train), "training sentences,", len(heldout), "held-out,",
          sum(item["golden"] for item in heldout), "golden")
    for entry in heldout[:20] + train[:20]:
        print(LABELS[entry["label"]], entry["construction"], entry["tokens"], entry["text"])
    extrapolation = make_extrapolation()
    print(len(extrapolation), "extrapolation sentences")
    for entry in extrapolation[::24]:
        print(LABELS[entry["label"]], entry["construction"], entry["tokens"], entry["text"])
