#!/usr/bin/env python3
"""Writes bench/data/assistant_chats.json: long user-assistant chats the horma developers wrote for this project.

A retrieval dev set beside LoCoMo and LongMemEval, in the LoCoMo JSON format
(horma/bench/locomo.py loads it). Four people talk to an assistant over 8 to 12
sessions spread across several months about everyday life (moving, a new job,
cooking, training, a pet, travel, allergies, hobbies, family, money, a
language, a car), with many turns on neighbouring topics so that the evidence
is not the only turn that looks relevant. Every turn was written by hand for
this file; nothing is copied from another dataset.

Categories (docs/benchmarks.md, the dev sets):
  11 paraphrase      the question words are not the evidence turn's words
  12 current value   a fact that changed 2-3 times; the evidence is the turn with the latest value
  13 preference      a like, dislike or constraint stated in passing earlier
  14 assistant said  what the assistant itself recommended or explained
  15 earlier value   what a changed fact was before
  16 several turns   two or three turns from different sessions are needed
  17 relative time   asked on a date of its own, after the last session, naming the evidence's day
                     only relatively ("last Sunday", "two months ago"); written in session 22

Run: python bench/data/make_assistant_chats.py  (checks the data, then rewrites the JSON next to it)

Data layout: each session is a date and a block of lines ``U: text`` / ``A: text``
(user / assistant, alternating, the user first); a line may carry a key,
``U home2: text``, which questions name as their evidence. The keys are
replaced by ``D<session>:<turn>`` dia_ids in the JSON. A question may carry
the date it is asked on as a fifth element (required for category 17), written
to the JSON as ``question_date`` in the sessions' date format.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import sys
from collections import Counter
from pathlib import Path

ASSISTANT = "Assistant"
CATEGORIES = {11: "paraphrase", 12: "current value", 13: "preference", 14: "assistant said",
              15: "earlier value", 16: "several turns", 17: "relative time"}
_LINE = re.compile(r"^(U|A)(?: ([a-z][a-z0-9_]*))?: (.+)$")
_STOP = frozenset(["a", "about", "after", "all", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "myself", "now", "of", "on", "or", "our", "should", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why", "will", "with", "would", "you", "your"])

CONVERSATIONS: list[dict] = []


def conversation(sample_id: str, user: str, sessions: list[tuple[str, str]],
                 questions: list[tuple]) -> None:
    CONVERSATIONS.append({"id": sample_id, "user": user, "sessions": sessions, "questions": questions})


def _parse_time(text: str) -> dt.datetime:
    return dt.datetime.strptime(" ".join(text.replace(",", " ").split()).lower(), "%I:%M %p on %d %B %Y")


def parse(conv: dict) -> tuple[list[tuple[str, list[tuple[str, str, str | None]]]], dict[str, str]]:
    """Sessions as (date, [(speaker, text, key)]) and the key -> dia_id map; ValueError on a malformed line."""
    sessions, keys = [], {}
    for n, (when, block) in enumerate(conv["sessions"], 1):
        turns = []
        for line in (x.strip() for x in block.strip().splitlines()):
            if not line:
                continue
            m = _LINE.match(line)
            if not m:
                raise ValueError(f"{conv['id']} session {n}: malformed line {line[:60]!r}")
            who, key, text = m.groups()
            turns.append((conv["user"] if who == "U" else ASSISTANT, text, key))
            if key:
                if key in keys:
                    raise ValueError(f"{conv['id']}: key {key!r} used twice")
                keys[key] = f"D{n}:{len(turns)}"
        sessions.append((when, turns))
    return sessions, keys


def _content_words(text: str) -> set[str]:
    try:
        from horma.core.text import STOPWORDS, words
    except ImportError:  # run without the project installed
        return {w for w in re.findall(r"[^\W_]+", text.lower()) if w not in _STOP}
    return {w for w in words(text) if w not in STOPWORDS}


def check(conversations: list[dict]) -> Counter:
    """Structural rules of the set; raises ValueError naming the first broken one. Returns counts by category."""
    counts: Counter = Counter()
    for conv in conversations:
        cid = conv["id"]
        sessions, keys = parse(conv)
        if not 8 <= len(sessions) <= 12:
            raise ValueError(f"{cid}: {len(sessions)} sessions (want 8-12)")
        times = [_parse_time(w) for w, _ in sessions]
        if times != sorted(times):
            raise ValueError(f"{cid}: sessions out of date order")
        months = (times[-1] - times[0]).days / 30.4
        if not 3 <= months <= 9.2:
            raise ValueError(f"{cid}: spans {months:.1f} months (want 3-9)")
        texts: dict[str, str] = {}
        for n, (_, turns) in enumerate(sessions, 1):
            if not 10 <= len(turns) <= 20:
                raise ValueError(f"{cid} session {n}: {len(turns)} turns (want 10-20)")
            for k, (who, text, _) in enumerate(turns, 1):
                want = conv["user"] if k % 2 else ASSISTANT
                if who != want:
                    raise ValueError(f"{cid} D{n}:{k}: {who} speaks where {want} should")
                if text in texts:
                    raise ValueError(f"{cid} D{n}:{k}: same text as {texts[text]}")
                texts[text] = f"D{n}:{k}"
        by_id = {f"D{n}:{k}": text for n, (_, turns) in enumerate(sessions, 1)
                 for k, (_, text, _) in enumerate(turns, 1)}
        main = [q for q in conv["questions"] if q[3] != 17]
        if not 20 <= len(main) <= 25:
            raise ValueError(f"{cid}: {len(main)} questions of categories 11-16 (want 20-25)")
        for question, answer, evidence, cat, *asked in conv["questions"]:
            if cat not in CATEGORIES:
                raise ValueError(f"{cid}: {question!r}: category {cat}")
            if asked and _parse_time(asked[0]) <= times[-1]:
                raise ValueError(f"{cid}: {question!r}: asked before the last session")
            if cat == 17 and not asked:
                raise ValueError(f"{cid}: {question!r}: a relative-time question needs the date it is asked on")
            ids = []
            for key in evidence.split():
                if key not in keys:
                    raise ValueError(f"{cid}: {question!r}: unknown evidence key {key!r}")
                ids.append(keys[key])
            if not ids or not answer.strip():
                raise ValueError(f"{cid}: {question!r}: no evidence or no answer")
            if cat == 16 and len({i.split(":")[0] for i in ids}) < 2:
                raise ValueError(f"{cid}: {question!r}: several-turn question within one session")
            if cat == 11:
                shared = _content_words(question) & {w for i in ids for w in _content_words(by_id[i])}
                if len(shared) > 1:
                    raise ValueError(f"{cid}: paraphrase {question!r} shares {sorted(shared)} with its evidence")
            counts[cat] += 1
    return counts


def build(conversations: list[dict]) -> list[dict]:
    out = []
    for conv in conversations:
        sessions, keys = parse(conv)
        c: dict = {"speaker_a": conv["user"], "speaker_b": ASSISTANT}
        for n, (when, turns) in enumerate(sessions, 1):
            c[f"session_{n}_date_time"] = when
            c[f"session_{n}"] = [{"speaker": who, "dia_id": f"D{n}:{k}", "text": text}
                                 for k, (who, text, _) in enumerate(turns, 1)]
        qa = [{"question": q, "answer": a, "evidence": [keys[e] for e in ev.split()], "category": cat,
               **({"question_date": asked[0]} if asked else {})}
              for q, a, ev, cat, *asked in conv["questions"]]
        out.append({"sample_id": conv["id"], "conversation": c, "qa": qa})
    return out


# ---------------------------------------------------------------------------------------------------------------
# The conversations. Keys on lines are evidence; questions: (question, answer, "key key", category).
# ---------------------------------------------------------------------------------------------------------------

conversation("chat-daniel", "Daniel", [
    ("7:42 pm on 12 February, 2023", """
U: Long day. Thirty-one sophomores, two broken Bunsen burners and a fire drill right in the middle of a titration lab. I love the subject, but I don't know how many more years of this I have in me.
A: That sounds exhausting; a fire drill halfway through a titration is its own special kind of chaos. Do you want to vent for a bit, or are you starting to think seriously about what else you could do? People with a teaching background move into quite a few neighboring fields: curriculum writing, instructional design, science communication, lab coordination, corporate training, ed-tech product roles.
U job1: A bit of both. I've taught chemistry at Lincoln Park High School for six years now. Instructional design keeps coming up when I look around; a friend from college does it for a software company and seems happy.
A: Instructional design is one of the most common moves for teachers, and your experience maps onto it well. You already write learning objectives, sequence content, build assessments and watch where people get stuck, which is most of the job. The gaps people usually fill are: 1) the tools, mainly Articulate Storyline or Rise, sometimes Camtasia for video; 2) some adult learning theory, since corporate and college learners are not fifteen; and 3) a portfolio. A good first step is to rebuild one of your existing lessons as a short self-paced module, so you have something concrete to show and find out whether you enjoy the work.
U: Okay, that's less scary than I expected. Unrelated, but I started a couch-to-5k program last week and day three nearly killed me.
A: Day three of week one catches a lot of people out, so you're in good company. A few things that help: run slowly enough that you could talk in short sentences, which will feel almost embarrassingly slow; repeat a week if you need to, since the plan is a guide, not a test; and keep at least one rest day between runs so your legs and tendons can adapt. Shins and calves complain first, which is normal as long as it eases within a day or two.
U home1: Running in Chicago in February is its own problem. The lakefront trail is basically an ice rink, so I do loops around the block in Logan Square, near the apartment I rent.
A: Sensible. For the ice, slip-on traction cleats like Yaktrax make a big difference on packed snow, side streets that get salted early are often safer than the trail, and on the worst days a treadmill session counts just as much. Shorten your stride on slick patches and land under your hips rather than out in front.
U pref_morning: Treadmill is fine in a pinch. I have to get my runs done before first period though. By 4 pm I'm a zombie and nothing happens.
A: Then protect that early slot: lay out your clothes the night before, keep the first ten minutes gentle while you wake up, and have something small like a banana if you feel flat. A consistent start time helps more than anything else.
U: I also want to get serious about money. The goal is a down payment on a place of my own within two or three years.
A: That's a great goal to put numbers on. To help you make a plan, it would be useful to know roughly what you take home each month, what your fixed costs are (rent, loans, insurance, phone), and how much you have saved already. From there we can work out a monthly savings target and where the money should sit in the meantime.
U save1: I take home about $4,100 a month. I figured I could put $900 a month into a high-yield savings account if I stop ordering in so much.
A: $900 a month is a solid start, a bit over 20% of take-home pay, and over two years that's more than $21,000 before interest. Set up an automatic transfer for the day after payday so the money moves before you can spend it, keep the down payment fund separate from your emergency fund, and track the takeout spending for a month so you know what you're actually cutting from.
U: The takeout thing is real. I order Thai food like three times a week, there's a place on Milwaukee Avenue that knows my order by heart.
A: Three times a week adds up fast, probably $150 to $200 a month. You don't need to quit it, just make it a treat: pick one night a week for the Thai place and learn one or two dishes you can make faster than delivery. Pad kra pao (holy basil stir fry with rice and a fried egg) takes about fifteen minutes once you have fish sauce, oyster sauce and a few bird's eye chilies in the cupboard.
"""),
    ("10:15 am on 4 March, 2023", """
U dog_adopt: Big weekend. I adopted a dog! She's a retired racing greyhound from an adoption group up in Wisconsin, four years old, and she has already claimed the couch.
A: Congratulations! Retired racers tend to be wonderfully calm apartment dogs; people call them forty-five mile per hour couch potatoes. A few things that help in the first weeks: most of them have never lived in a house, so stairs, glass doors and slippery floors can be brand new; keep her on a leash or in a fenced area outdoors, because their prey drive and speed are no joke; use a martingale collar, since their heads are narrower than their necks; and give her a quiet bed where nobody bothers her while she decompresses.
U dog_name: Her track name was Kiss Me Quick, which I refuse to yell across a park, so I renamed her Pepper. She's grey with one white sock.
A: Pepper suits a grey girl with one white sock. To teach it, say the name in a happy voice and reward her the moment she looks at you, a few times a day, and avoid using it when you're scolding her. Many ex-racers learn a new name within a couple of weeks, since their track names were rarely used anyway.
U: Problem: she won't climb the stairs to my third-floor apartment. I've been carrying all sixty-five pounds of her up every time.
A: That is very common with ex-racers, and your back will thank you for training it now. Start at the bottom with a leash and a handful of high-value treats; place her front paws on the first step and reward, then lift one back paw and reward again. Work a step at a time over several short sessions, staying beside her on the outside. Going down is usually harder, so practice that separately with you a step below her. Most greyhounds get it within a week or two.
U: And what should she eat? The adoption group sent her home with a bag of really cheap kibble.
A a_food: Switch gradually over seven to ten days by mixing in more of the new food each day, so her stomach can adjust. Many greyhound owners do well with a performance-style kibble such as Purina Pro Plan Sport 30/20, which is easy to find and has enough protein for a lean dog; for a sixty-five pound greyhound that usually means around three to four cups a day split into two meals, adjusted so you can just feel her ribs. Ask your vet to check her teeth as well, since racing dogs often arrive with a lot of tartar.
U sister: My sister Rachel drove down from Milwaukee with the kids to meet her. My nephews tried to smuggle Pepper into their minivan.
A: Ha, that is a strong endorsement. With children, a good habit is to let Pepper approach them rather than the other way around: no hugging or leaning over her, and no disturbing her while she sleeps, since some greyhounds startle awake. It sounds like she handled a busy visit well.
U: Rachel also made her famous risotto for us. It's loaded with porcini and cremini, and I spent the whole meal pushing them to the side of the plate like a five-year-old.
A: Ha, that happens to the best of us. Were you just not in the mood for it, or is it mushrooms in general?
U pref_mush: It's mushrooms in general, always has been. It's the slimy texture, I can't get past it no matter how they're cooked.
A: Noted, no mushrooms for you. If you ever want that deep savory flavor without them, miso, a parmesan rind, tomato paste, soy sauce and caramelized onions all do a lot of the same work. A butternut squash or lemon and pea risotto would let Rachel keep her technique without the fungi.
U: I'll suggest it tactfully. One more money question: is it dumb to keep my savings in a regular checking account for now?
A: Not dumb, just expensive in a quiet way. A checking account pays close to nothing, while high-yield savings accounts are paying around 3.5 to 4% right now, so on $5,000 that's roughly $200 a year you're leaving on the table. Online banks like Ally, Marcus or Discover are FDIC-insured, and transfers take a day or two, which is fine for money you won't touch soon.
"""),
    ("6:30 pm on 29 March, 2023", """
U: Update: I finished week five of couch-to-5k! On Saturday I went twenty minutes without stopping.
A: That's a huge milestone. Week five's twenty-minute run is the jump most people fear, and you did it in a Chicago March. From here the plan mostly lengthens the runs, so keep the pace easy and don't be surprised if some days feel harder than others; sleep and stress show up in your legs.
U: I also built my first e-learning module in Articulate Rise, on balancing chemical equations. It ate my entire spring break.
A: That's exactly the right kind of portfolio piece. To get the most out of it, write a short case study to go with it: who the learners are, the problem you were solving (students who can do the math but don't understand conservation of mass, say), your learning objectives, two or three design decisions and why you made them, and how you'd measure whether it worked. Hiring managers care about your reasoning as much as the screens.
U: Can you recommend a book on instructional design? I want actual grounding, not just YouTube videos.
A a_book: The one most people start with is Design for How People Learn by Julie Dirksen. It's readable, practical and well illustrated, and it covers motivation, memory and designing for behavior change. After that, Map It by Cathy Moore is excellent on action mapping, which is how many corporate teams decide what a training should even contain. I'd start with Dirksen and read it with your module open, asking yourself what you'd change.
U job_apps: I've applied to four companies so far. The one I'm most excited about is Brightpath Learning, they make science courses for community colleges.
A: Brightpath sounds like a natural fit, since you'd be bringing real classroom chemistry experience to their core product. Tailor the cover letter: mention students who struggle with lab concepts, link your Rise module, and echo the language of the job posting. If they ask for a design exercise, ask how long they expect it to take and don't spend much more than that.
U: Okay. Dinner idea for tonight? I want something with serious heat.
A: How about chili crisp noodles? Cook wheat noodles, then toss them with a spoonful of chili crisp, a little soy sauce, black vinegar, sesame oil, a pinch of sugar and sliced scallions. Add a fried egg or some smashed cucumbers on the side. Fifteen minutes, and you control the fire.
U pref_spicy: Perfect. The more my eyes water the happier I am; I put hot sauce on basically everything, eggs included.
A: Then double the chili crisp and slice a few fresh Thai chilies into the vinegar. For your eggs, try a Sichuan chili oil, or a habanero sauce like El Yucateco if the usual bottle has stopped doing anything for you.
U: Pepper barked at a squirrel today for the first time. I genuinely didn't know she could bark.
A: Lots of ex-racers barely bark at all, so that squirrel must have really offended her. Keep a firm grip on the leash on squirrel-heavy streets; that burst of speed from a standstill can take your arm with it.
U: She also figured out the stairs, by the way. She now runs up them faster than I do.
A: That's fantastic, your back is officially off duty. Keep rewarding her at the top now and then so the stairs stay a happy place.
"""),
    ("8:05 pm on 24 April, 2023", """
U job_offer: I got an offer! Brightpath Learning wants me as an instructional designer. The catch is that they're based in Minneapolis and want people in the office three days a week.
A: Congratulations! That is a big deal on your first round of applications. Before you decide, it helps to look at the salary and benefits compared with teaching, whether they pay for relocation, the cost of living in Minneapolis, your lease end date, and how you feel about leaving Chicago, your friends, and being further from Rachel.
U salary1: The pay is $78,000, compared to $61,000 now, and they'd give me a $5,000 relocation stipend.
A: That's a raise of $17,000, close to 28%, and Minneapolis rents are generally a bit lower than in Chicago neighborhoods like Logan Square, so your savings rate could go up meaningfully. The stipend should cover most of a one-bedroom move if you plan it carefully. Check the health insurance and the retirement match too, since the teachers' pension is something you'd be giving up.
U: My lease is up on June 30 and school ends June 9, so the timing kind of works.
A: That's unusually good timing. You could finish the school year, move in the last week of June and have a couple of weeks to settle before starting. I'd ask for a start date in mid-July so you're not unpacking and onboarding in the same week.
U: I accepted this afternoon! They agreed to July 17 as my first day.
A: Congratulations, that's wonderful. Next steps: give your school written notice according to your contract, ask Brightpath what they need for the relocation stipend (usually receipts), and start looking at apartments in Minneapolis in May, since June 1 and July 1 are the busy leasing dates there.
U car1: Should I keep my car? It's a 2011 Honda Civic with 160,000 miles and it makes a clicking noise whenever I turn left.
A a_civic: A clicking sound that appears when turning is most often a worn CV joint, usually because its rubber boot has torn and the grease has leaked out. It's worth getting checked soon, since a failing joint can eventually break. Whether to keep the car depends on the repair quote against its value: a 2011 Civic with that mileage might be worth $3,000 to $5,000, so a repair of a few hundred dollars may still make sense. Also think about Minnesota winters, where good winter tires matter a lot.
U: Ugh, okay, I'll take it to the mechanic. What's the best way to move a greyhound four hundred miles?
A: Plan it like a road trip with a nervous passenger. Use a crash-tested harness clipped to the seat belt, or a large crate if she fits, put down her own blanket, feed a small meal three or four hours before leaving, and stop every two to three hours for water and a short walk on leash. Do a few short practice drives before the move so the car isn't new to her.
U: She is very dramatic in the car. She whines the entire time, even on the way to the vet.
A: Whining in the car is common and usually anxiety rather than motion sickness. Practice drives that end somewhere fun (a park, not the vet) help, as does a lick mat with peanut butter or a covered crate. For the long drive, ask your vet whether something like trazodone or gabapentin is appropriate; many greyhound groups recommend trying it once at home first to see how she reacts.
U: The vet actually mentioned trazodone already. Okay, I have a lot of lists to make.
A: You do, but they're good lists. If it helps, I can put together a week-by-week moving checklist from now until June 30 whenever you're ready.
"""),
    ("11:20 am on 16 June, 2023", """
U: Two weeks until moving day and my apartment is about 70% boxes. Pepper is deeply suspicious of the tape gun.
A: The tape gun is a villain to many dogs! Give her a calm corner away from the packing, with her bed and a chew, and do the loud taping in bursts. On moving day itself she'll be happier with a friend or at a daycare than watching her furniture leave.
U home2: I signed a lease on a one-bedroom in Uptown in Minneapolis. Ground floor, five minutes from the lakes, and no stairs for Pepper.
A: That's a great spot for both of you. The Chain of Lakes paths around Bde Maka Ska and Lake of the Isles are some of the best running and walking routes in the city, and Uptown has plenty of places to eat. Ground floor with a greyhound is a gift, especially in winter.
U: Full-service movers quoted me $2,900, which feels insane for a one-bedroom.
A a_movers: It's a common price for a 400-mile full-service move, but you have cheaper options. A moving container such as a U-Pack ReloCube or PODS usually runs about $1,500 to $2,200 for this distance; renting a truck yourself is often $600 to $900 plus gas and a long day of driving; or you can hire labor-only helpers to load and unload. For a one-bedroom, I'd go with a ReloCube and book two loaders for a couple of hours at each end, which keeps you well under the $5,000 stipend.
U car_sold: The mechanic said the clicking was the CV axle, $700 to fix. I sold the Civic to a coworker for $2,200 instead and I'll figure out wheels later.
A: That's reasonable given its age. In Uptown you can get by without a car for a while: there are frequent buses, Nice Ride bikes and scooters, and grocery delivery. The container option fits nicely too, since you don't need to drive a truck yourself. You could rent a car one way for the trip, or fly and have a friend bring Pepper.
U: I'll rent a car one way for me and Pepper. Should I bump up my savings now that the new salary is coming?
A: Yes, this is the ideal moment, since you won't miss money you've never had. A common approach is to save at least half of any raise. Your take-home should rise by roughly $1,000 a month, so moving your transfer from $900 to about $1,400 or $1,500 would still leave you more spending money than now.
U save2: Okay, I'm raising the automatic transfer to $1,500 a month starting with the first Brightpath paycheck.
A: Great. One tip: keep three to six months of expenses in a separate emergency fund before putting everything toward the down payment, especially in the first year at a new job. Moving always costs more than you expect.
U: Last day of school was Friday. The students made me a card shaped like a beaker, and I may have cried in the parking lot.
A: That's a lovely send-off, and a sign of the teacher you were to them. It's normal to grieve a job you've loved even when you chose to leave it. Keep the card; it will mean a lot on tough days in the new role.
U pref_dairy: I will. Random one: regular milk wrecks my stomach, so I've been on oat milk for years, but Oatly keeps selling out at my store. Any decent substitute?
A: Several good ones: Califia Farms and Planet Oat are widely available and taste similar, and for coffee their barista versions foam best. Soy milk has more protein if that matters to you. Lactose-free cow's milk is another option for some people, but if dairy itself bothers you, stick with the plant-based ones.
"""),
    ("9:30 pm on 2 August, 2023", """
U: Three weeks into the new job. It's weird being able to go to the bathroom whenever I want.
A: The small freedoms of leaving the classroom! How is the work itself so far, and how is Pepper settling into the new place?
U boss: The team is great. My manager, Aisha, put me on a general chemistry course for a community college in Ohio, fifteen modules due by December.
A: Fifteen modules in about five months is a steady pace, roughly one every week and a half. It helps to build a template from the first module and agree on it with Aisha and the subject matter expert before producing the rest, so review cycles don't eat your schedule. Track how long each one actually takes and flag risks early.
U run2: I finished couch-to-5k in May and ran the Lake Harriet 5K last weekend in 29:40, my first race ever. So now I've signed up for the Minneapolis Fall Half on October 8!
A: 29:40 only months after starting from scratch is excellent. A half marathon in ten weeks is doable from a 5K base if you're careful: build your long run gradually from about 6 miles to 11 or 12, keep most runs easy, add one shorter faster run a week, and don't increase weekly mileage by more than about 10%. Good shoes matter more now, so get fitted if you haven't.
U: Pepper goes to a doggy daycare called Wag Street two days a week while I'm in the office.
A: Nice. With greyhounds it's worth checking that the daycare separates dogs by size and play style, because their thin skin tears easily and some aren't sure what to make of small fluffy dogs. Ask whether they take collars off during play and whether they'll tell you if she seems stressed.
U: She loves it. They say she mostly naps on a big beanbag and ignores everyone.
A: That's peak greyhound behavior, honestly. She gets company, and you get a tired, happy dog in the evening.
U: I've been meal prepping on Sundays. This week was black bean enchiladas with about six jalapeños.
A: Enchiladas freeze beautifully. If you want to mix up your prep: a big batch of chipotle chicken tinga, red lentil dal with green chilies, or a spicy peanut noodle salad all reheat well. Portion into containers and label them so you don't end up eating enchiladas for ten days straight.
U: Okay, real question. I miss the Thai place on Milwaukee Avenue. Where do people here go for Thai food?
A: I can't vouch for individual restaurants' current quality, but a good starting point is Eat Street, the stretch of Nicollet Avenue just south of downtown Minneapolis with a lot of Southeast Asian places, and University Avenue in St. Paul, which has many Thai, Lao, Hmong and Vietnamese restaurants. Check recent reviews and ask coworkers which spots make their food properly hot.
U: I'll ask around at work. Every walk with Pepper around Bde Maka Ska makes me glad I moved, by the way.
A: That's great to hear. A few months ago you were carrying her up three flights of stairs in Chicago; now you have a lake loop and a ground-floor apartment. Enjoy the summer before the famous Minnesota winter arrives.
"""),
    ("7:10 pm on 27 August, 2023", """
U shin: Bad news. Shin splints. The physical therapist says no running for at least six weeks, so the October half marathon is off.
A: I'm sorry, that's frustrating after such a good start. Shin splints often come from ramping up mileage quickly, and six weeks off with good rehab usually does the trick. Keep doing the PT's exercises, particularly calf and hip strength work, and ask her which activities you can do for fitness in the meantime so you don't lose your base.
U goal3: She suggested cycling instead, and honestly I'm hooked. A guy from work talked me into the Ride for Hope next June, a hundred-mile charity bike ride. That's my new goal.
A: A century ride is a great goal, and June gives you nearly ten months, which is plenty. Build a base this fall with two or three rides a week, mostly easy, then in spring lengthen one ride a week toward 60 or 70 miles by May. Cycling is much kinder on shins than running, but ask your PT to check your saddle height so your knees and hips stay happy.
U: First I need a bike. I'm thinking $1,000 tops.
A a_bike: At that budget, look at an endurance road bike with disc brakes and room for wide tires, which will be comfortable on long rides and on rough roads. Good options are the Giant Contend AR 3 and the Trek Domane AL 2; I'd lean toward the Giant Contend AR 3 because it comes with 32 mm tires and a slightly more relaxed position. Buying used can get you more for your money, and whatever you pick, a basic bike fit at the shop is worth it.
U: I also need a car again. Everyone here keeps warning me about winter, like it's a horror movie.
A a_tires: They're not wrong, but it's manageable. The most important thing is winter tires rather than all-wheel drive: AWD helps you get going, but tires are what help you stop and turn on ice. Bridgestone Blizzak or Michelin X-Ice are popular choices. For the car itself, used Subaru Outbacks, Toyota RAV4s and Honda CR-Vs are common here because they're practical in snow, have room for a big dog and hold up well. Budget for a remote starter and a good scraper.
U: I'm looking at a 2018 Outback at a dealer in Bloomington. Is 54,000 miles a lot for that year?
A: 54,000 miles on a 2018 is a little below average (10,000 to 12,000 miles a year is typical), so that's fine. Ask for the service records, check that the CVT fluid has been changed or at least inspected, look for rust underneath, and get a pre-purchase inspection from an independent mechanic. Check the recall list for that VIN, too.
U: Will do. Meanwhile Aisha says my first two modules got great feedback from the college.
A: That's excellent news this early. Save that feedback somewhere; it's useful for your review later in the year and for your portfolio. Did anything in particular land well?
U: The lab simulation where students mix solutions and watch the color change. The instructor said it's the first time her class actually understood molarity.
A: That's the best kind of feedback, because it shows learning rather than just satisfaction. Write a short note about what you did differently in that simulation so you can reuse the approach in later modules.
U: Also, my mom turns sixty in October and Rachel wants to throw a surprise party in Milwaukee. I'm in charge of the slideshow.
A: That's a fun job. Start by asking relatives to send photos now, since collecting them is always the slowest part. Keep it to eight to ten minutes, roughly chronological, with a song or two she loves, and include a few recent photos with Pepper and the grandkids so it ends in the present.
"""),
    ("12:45 pm on 16 September, 2023", """
U car3: Done! I bought the 2018 Subaru Outback, dark green, $19,500 after some haggling. Pepper fits in the back perfectly.
A: Congratulations, that sounds like a great choice. Before winter, get a set of winter tires on their own wheels so seasonal swaps are cheap, and add a washable cargo liner for Pepper. Do a first oil change and fluid check at a shop you trust, so you have a baseline.
U save3: Buying it took a chunk out of my savings, so I've lowered the monthly transfer to $1,100 until the car loan is paid off next spring.
A: That's a sensible compromise: still a solid savings rate, and it keeps the loan from dragging on. When the loan ends, move the transfer back up straight away, so the extra money doesn't get absorbed into everyday spending.
U: The shins are healing. I'm on the stationary bike at the gym three times a week.
A: Good. The stationary bike is great for base fitness; try to include one longer session, like an hour at an easy effort, and one with short intervals. Keep up the PT exercises even after the pain is gone, that's what stops it coming back.
U: I went with the Giant, by the way. Picked it up on Saturday, but it's already getting chilly for outdoor rides.
A: Nice! For fall riding, layers are everything: a windproof jacket, full-finger gloves and a thin cap under the helmet. You can also add a smart trainer later so you can ride indoors through the winter, since outdoor riding in January is only for the brave.
U: Help with the slideshow: what songs are good for a sixtieth? My mom loves Motown.
A: Motown is perfect for a slideshow. Some classics: My Girl by the Temptations, Ain't No Mountain High Enough by Marvin Gaye and Tammi Terrell, I Want You Back by the Jackson 5, Signed, Sealed, Delivered by Stevie Wonder, and Reach Out I'll Be There by the Four Tops. About three songs will fill eight to ten minutes.
U: Ha, she plays My Girl in the kitchen every Sunday. That's the closer.
A: Then that has to be the final song, ideally over a recent photo of her laughing. You'll probably reduce half the room to tears.
U: Different thing: my landlord just told me the building's been sold. The new owners are renovating and everyone has to be out by the end of October.
A: That's stressful, especially so soon after moving. Read your lease to see what notice they're required to give and whether they're offering relocation help, and look up the city's tenant protections for building sales. Start looking now, since you want somewhere dog-friendly and ideally without stairs.
U t_yard: Ugh. I want a yard this time, so Pepper can zoom.
A: A fenced yard is a great priority for a greyhound; a daily sprint keeps them happy. Duplexes and the lower units of older houses often have shared yards. Look at neighborhoods like Longfellow in Minneapolis or Highland Park and Macalester-Groveland in St. Paul, which have many of them and are an easy drive to downtown.
"""),
    ("8:20 pm on 11 October, 2023", """
U: Mom's party was a success! She had no idea, and she cried through the whole slideshow.
A: That's wonderful, exactly the reaction you were hoping for. How did the ending with My Girl go?
U: Everyone sang along, even my uncle who never sings. Rachel's kids did a dance in front of the screen.
A: That sounds like a memory the family will talk about for years. Save the slideshow file and the photos somewhere safe, and send your mom a copy.
U job3: Also news from work: I got promoted to senior instructional designer! I'll lead the chemistry team, two other designers, starting in November.
A: Congratulations! After only three months, that's a big vote of confidence. Leading designers is a shift: your output becomes their output, so schedule regular one-on-ones, agree on standards early, and keep some time for hands-on design so you don't lose touch with the work. Did it come with a raise?
U salary2: Yes, to $89,000. I'm still getting used to the idea.
A: Well deserved. With the car loan ending in spring, you'll be in a strong position to save hard for the down payment. Maybe treat yourself to something small to mark the promotion, too.
U: I'm thinking a proper cycling computer for the Giant. Can you suggest one?
A a_computer: For someone building up to a century, the Wahoo Elemnt Bolt and the Garmin Edge 540 are both excellent; the Wahoo is simpler to set up from your phone, and the Garmin has more training features. If you want to spend less, the Garmin Edge 130 Plus covers speed, distance and heart rate well. I'd go for the Wahoo Elemnt Bolt; its app makes routes and setup painless.
U: On the housing front: I found a duplex with a fenced yard! Lower unit, two bedrooms, $1,650 a month. Signing Friday.
A: Fantastic, that checks every box: a yard, no stairs for Pepper, and room for a home office on your remote days. Before signing, walk the fence line for gaps (greyhounds can squeeze through surprisingly small ones), confirm who shovels the snow, and photograph everything on move-in day.
U: Pepper will be thrilled. I also tried a Hmong place on University Avenue that a coworker recommended. Best larb of my life.
A: Glad the tip worked out. Hmong and Lao food is a real strength of the area. If you liked the larb, try the papaya salad made Lao-style, with fermented fish sauce and as many chilies as you dare.
U: Obviously I asked for the hottest version. The waiter warned me twice.
A: Of course you did. At least they didn't make you sign a waiver.
"""),
    ("5:00 pm on 4 November, 2023", """
U home3: We're all moved into the duplex in St. Paul, in Macalester-Groveland. Pepper did three laps of the yard at full speed and then slept for four hours.
A: That's the best possible housewarming. How did the move go this time?
U: Two friends from work and a rented truck, much cheaper. First snow was yesterday, which feels rude in early November.
A: Welcome to Minnesota, where snow in early November is unremarkable. Did you get the winter tires on the Outback yet?
U t_tyres: Yes, I went with the Blizzaks, mounted on cheap steel wheels.
A: Good call. Winter tires on their own wheels are easy to swap each season. Check their pressure once a month through the winter, since cold weather makes it drop.
U: First week as a senior designer done. One of my designers is behind on her modules and I don't know how to bring it up.
A: Keep it specific and curious rather than critical. In your next one-on-one, say what you've noticed ("module 9 was due Friday and it's still in draft"), ask what's getting in the way, and agree on a concrete plan and a check-in date. Often the cause is unclear requirements or too many review rounds, which you can fix as a lead.
U: That's a good framing. It's strange being the boss of people when six months ago I was grading lab reports.
A: Many new leads feel that, especially after teaching. But you have a lot of relevant experience: you managed a room of thirty teenagers, gave feedback constantly and planned long-term curricula. It's the same skill set pointed at adults.
U: Now that I've got a kitchen with a gas stove, I want to learn to cook Thai properly. Where do I start?
A a_thai: Start with a few pantry staples: fish sauce, oyster sauce, palm sugar, tamarind paste, jasmine rice, coconut milk, and fresh Thai chilies, garlic, shallots and limes. Good first dishes are pad kra pao, green curry (with a store-bought paste like Maesri at first) and tom yum soup. For a cookbook, Leela Punyaratabandhu's Simple Thai Food is a great choice for a beginner who wants authentic flavors.
U: Ordered the book. Pepper is lying on my feet while I type this.
A: That's peak domestic bliss: a yard, a warm dog on your feet and a good cookbook on its way. Enjoy settling in.
"""),
], [
    ("What's my dog called?", "Pepper", "dog_name", 11),
    ("What breed is my pet?", "a retired racing greyhound", "dog_adopt", 11),
    ("What time did I clock in my debut running event?", "29:40", "run2", 11),
    ("Who is my boss at the new company?", "Aisha", "boss", 11),
    ("What injury forced me to stop jogging?", "shin splints", "shin", 11),
    ("How much money did I get for my old vehicle?", "$2,200", "car_sold", 11),
    ("In which city does my sibling live?", "Milwaukee", "sister", 11),
    ("Where do I live?", "a duplex in Macalester-Groveland, St. Paul", "home3", 12),
    ("What am I training for these days?", "the Ride for Hope, a 100-mile charity bike ride in June", "goal3", 12),
    ("What car do I drive now?", "a dark green 2018 Subaru Outback", "car3", 12),
    ("How much do I transfer to savings each month at the moment?", "$1,100", "save3", 12),
    ("What's my job title?", "senior instructional designer", "job3", 12),
    ("I'm making risotto tonight; which ingredient should you keep out of it for me?", "mushrooms", "pref_mush", 13),
    ("How spicy should the dinners you suggest for me be?", "very spicy", "pref_spicy", 13),
    ("What time of day should you plan my workouts for?", "early morning, before work", "pref_morning", 13),
    ("What should you use instead of milk in a smoothie recipe for me?", "oat milk (or another plant milk)",
     "pref_dairy", 13),
    ("Which instructional design book did you recommend?", "Design for How People Learn by Julie Dirksen",
     "a_book", 14),
    ("What moving option did you suggest for my one-bedroom?", "a U-Pack ReloCube with two hired loaders",
     "a_movers", 14),
    ("Which bike model did you lean toward for me?", "the Giant Contend AR 3", "a_bike", 14),
    ("Which Thai cookbook did you recommend?", "Simple Thai Food by Leela Punyaratabandhu", "a_thai", 14),
    ("Where did I live before St. Paul?", "a one-bedroom in Uptown, Minneapolis", "home2", 15),
    ("What race was I preparing for before I got hurt?", "the Minneapolis Fall Half (a half marathon)", "run2", 15),
    ("How much did I plan to save each month at first?", "$900", "save1", 15),
    ("Which cities have I lived in this year, in order?", "Chicago, Minneapolis, St. Paul", "home1 home2 home3", 16),
    ("What cars have I owned this year?", "a 2011 Honda Civic, then a 2018 Subaru Outback", "car1 car3", 16),
    ("What did I get for the car last Saturday?", "Blizzak winter tyres on steel wheels", "t_tyres", 17,
     "7:30 pm on 9 November, 2023"),
    ("What was I hoping for in my next home two months ago?", "a yard, so Pepper can run", "t_yard", 17,
     "7:30 pm on 9 November, 2023"),
])

conversation("chat-sofia", "Sofia", [
    ("9:15 pm on 8 January, 2024", """
U job1: Just back from a run of four night shifts on the paediatric ward at the children's hospital in Lyon. My body has no idea what time it is.
A: Four nights in a row is brutal. For the switch back, many nurses find it easiest to sleep only three or four hours the morning after the last shift, then stay up until a normal bedtime, with daylight and a walk in the afternoon. Go easy on caffeine after about 2 pm and don't plan anything important for tomorrow.
U german1: Noted. I'm trying to use the days off for German. I'm stuck around A2: I can order food and talk about the weather and that's it.
A: A2 is a very common plateau: you know enough to survive but not enough to have real conversations. What's your goal with German, is it for work, travel or family? It changes what's worth focusing on.
U home1: Work, probably. There's a children's hospital in Vienna hiring nurses with paediatric experience, and I've been staring at the ad for a week. I love my flat in the Croix-Rousse, but I feel like I've done Lyon.
A: That's an exciting thing to be considering. Austrian hospitals usually want at least B1 German for nurses, often B2 for full registration, and you'll need your French nursing diploma recognised, which can take a few months, so it's worth starting early even if you're not sure yet. If you apply, lead with your paediatric experience and be honest about your German level, together with a plan to improve it.
U: What's a good way to get from A2 to B1 quickly, with a shift schedule?
A a_german: With irregular shifts, short and daily beats long and occasional. I'd combine three things: Deutsche Welle's free course Nicos Weg, which takes you from A1 to B1 with video episodes and exercises; an Anki deck for vocabulary, ten minutes a day; and one conversation session a week with a tutor on italki or Preply, ideally someone who knows hospital vocabulary. Add Austrian podcasts or ORF radio for listening, since the accent is different from what textbooks teach.
U: Nicos Weg, okay. Also, tiny rant: I went to a bouchon with colleagues and nobody checked whether the sauce had crayfish in it. Of course it did.
A: Oh no, are you all right? If that's an allergy, it's worth taking seriously even when it feels awkward to ask.
U allergy1: I'm fine, I noticed before eating. I'm allergic to shellfish, prawns especially, and I carry an EpiPen. But in Lyon half the sauces have écrevisses in them.
A: I'm glad you caught it. With a shellfish allergy, Lyonnaise cooking is tricky: sauce Nantua and many quenelle dishes contain crayfish, and some fish stocks are made from shells. It's reasonable to tell the waiter at the start ("je suis allergique aux crustacés") and ask them to confirm with the kitchen. Check your EpiPen's expiry date too, since they often lapse quietly.
U: It expires in March, I'll get a new one. Actually, one more thing: is it crazy to move countries at thirty-two?
A: Not at all. Plenty of nurses move abroad in their thirties, often with more confidence than they'd have had at twenty-five: you know what kind of ward you like, you can handle difficult shifts and you'll adapt faster. The main costs are practical (paperwork, language, leaving friends), and you can plan for those.
U: Okay. Back to bed, or trying to.
A: Good luck. Dark room, cool temperature, phone out of reach. Sleep well.
"""),
    ("7:40 pm on 27 January, 2024", """
U hobby: I finally threw a bowl on the wheel that didn't collapse! Three weeks of Saturday classes at a studio near Les Pentes and until now I'd made nothing but mud.
A: Congratulations! Centring is the hardest part of wheel throwing, and most beginners spend weeks making what you call mud. Once the clay is centred, the rest gets much easier. Are you planning to keep it, trim it and glaze it?
U: Yes, the teacher says I can trim it next week. I want to glaze it a deep blue.
A: A deep cobalt, or a celadon over a dark clay, can look beautiful. Ask your teacher whether the studio's glazes are food safe, since you'll presumably eat from it, and expect the colour to look quite different before and after firing.
U: I sent my application to the Vienna hospital on Wednesday. They've already asked for a video interview next week!
A: That's fast, which is a good sign. Would you like to prepare together? Typical questions for paediatric nurses include a time you handled an anxious parent, how you prioritise when several children deteriorate at once, your experience with medication calculations for children, and why Vienna. They may test your German with a few questions even if the interview is in English.
U: Yes please. The why Vienna one is hard. The honest answer is "I want a change."
A: That honest answer is fine, you just need to frame it. Something like: you've spent eight years in paediatrics in Lyon and want to grow in a large, specialised children's hospital; you're drawn to Vienna for its quality of life and its strong paediatric care; and you're committed to German, with concrete steps you're already taking. Employers like candidates who are moving toward something, not just away.
U family: That's good, thank you. Switching topics: my sister Giulia is getting married in Turin in June and she just asked me to be her maid of honour.
A: How lovely, congratulations to Giulia! Being maid of honour at an Italian wedding usually means helping with the dress, supporting her on the day and often a short speech at the reception. Do you know yet what she expects from you?
U: Dress shopping, emotional support and a speech in Italian, in front of two hundred people, including our nonna, who corrects everyone's grammar.
A: That's a lot of pressure, but you have months. We can write the speech together nearer the time: keep it short, tell one or two real stories about Giulia, include her fiancé, and end with a toast. Practising it in front of a friend (not nonna) helps a lot.
U fiance: Her fiancé is Marco, he races bikes on weekends and he's very sweet. Now, what should I cook for my colleagues' potluck on Sunday? Something that travels well.
A: A tarte à la tomate et moutarde, a big farro salad with roasted vegetables and feta, or a focaccia all travel well and are easy to serve at room temperature. Which fits the crowd best?
U pref_sweet: Focaccia, definitely. I'm not bringing dessert; everyone brings dessert, and honestly I've never liked sugary stuff.
A: Then focaccia it is: one with rosemary, flaky salt and cherry tomatoes is always the first thing to disappear. Make the dough the night before and let it rise slowly in the fridge for the best texture.
"""),
    ("12:10 pm on 18 February, 2024", """
U trip0: Planning time! My friend Amélie and I want to go to Japan in October for two weeks. Neither of us has been.
A: What a great trip to plan. October is a lovely time: mild weather, with autumn colours starting in the north and the mountains. For a first trip of two weeks, many people do Tokyo, Kyoto and Osaka, perhaps with a day trip to Nara or Hiroshima. What are you both most excited about: food, temples, nature, cities?
U trip1: Temples and food. We were thinking Tokyo, Kyoto and Osaka: five days, five days and four.
A: That's a classic, balanced first itinerary. Fly into Tokyo and out of Osaka (Kansai) if you can, so you don't backtrack. Five days in Kyoto is a luxury that lets you see the big temples early in the morning and do Nara as a day trip. Osaka is the food city: Dotonbori, Kuromon market and okonomiyaki.
U pref_crowds: I should say, both of us hate crowds. Truly. Places where you shuffle along behind a tour group make me want to go home.
A: That's useful to know, and very doable in Japan with some timing. Visit famous temples like Fushimi Inari and Kiyomizu-dera at opening time or just before closing, try quieter alternatives such as Daitoku-ji, and avoid Japanese public holidays. In Tokyo, neighbourhoods like Yanaka feel calm compared with Shibuya or Asakusa.
U: Should we get the JR Pass?
A a_jrpass: Probably not any more. The price of the 7-day JR Pass rose sharply in October 2023, so for a Tokyo–Kyoto–Osaka route it usually costs more than buying individual tickets. Buy a one-way Shinkansen ticket from Tokyo to Kyoto, use local trains between Kyoto and Osaka (about 30 minutes and cheap), and get an IC card like Suica or ICOCA for city transport.
U: Okay, no pass. How do I explain my allergy in restaurants there? Japanese food seems full of dashi and prawns.
A a_allergycard: It's worth being prepared, since crustaceans appear in many dishes and some stocks include dried shrimp. Carry a printed card in Japanese saying you have a severe allergy to crustaceans such as shrimp, prawns and crab, including in broths and sauces; a phrase to learn is "Kōkakurui arerugī ga arimasu" (I have a crustacean allergy). Restaurants tend to take cards seriously, but ramen and okonomiyaki places can be hard to guarantee. Bring two EpiPens.
U: Perfect. Amélie is vegetarian, so that's a second card.
A: Japan can be tricky for vegetarians because dashi is in so much. Shojin ryori, Buddhist temple cuisine, is fully vegetarian, and Kyoto is the best place for it; there are also more and more vegan restaurants in Tokyo and Kyoto. A card explaining no meat, no fish and no dashi will help her a lot.
U: Back to German: I've done eight episodes of Nicos Weg, and the Anki deck is going well too.
A: Great consistency, especially around shifts. At this stage, try to say things out loud: repeat the dialogue lines after the speakers and record yourself now and then, since speaking is where most self-learners lag behind.
U: The interview went well, by the way. They asked for a second one, with the head nurse of the general paediatric ward.
A: That's very promising. A second interview with the ward's head nurse usually focuses on clinical situations and team fit. Be ready to talk through an example of a deteriorating child, how you communicate with families and how you'd manage working in German while still learning.
U: Fingers crossed. I also bought a second-hand kick wheel from a retired potter, so now there's clay in my living room.
A: That's commitment! A kick wheel is great for learning control. Cover the floor with a drop cloth and keep a bucket for the clay water rather than pouring it into your sink, since clay can block the pipes.
"""),
    ("8:50 pm on 20 March, 2024", """
U job2: They offered me the job! Nurse on the general paediatric ward at the children's hospital in Vienna, starting 1 May. I said yes.
A: Congratulations, Sofia! That's a huge step. Six weeks is tight for an international move, so it's worth making a list now: notice at your current hospital, the diploma recognition, accommodation in Vienna, and what to do with your flat and your things.
U: Notice is one month, fine. The recognition is already in progress. What worries me is housing. Everyone says renting in Vienna is hard.
A: It's competitive but manageable. Many newcomers book a furnished flat or serviced apartment for one to three months, then look for a long-term place in person. Sites like willhaben.at and immobilienscout24.at are the main listings. Ask your employer whether they have staff housing or a partner agency; hospitals sometimes do.
U: The hospital has a list of short-term furnished places. I'll pick one close by.
A: Good. Look at districts with a short commute by U-Bahn or tram. When you sign the long-term contract later, read the Mietvertrag carefully; a deposit of three months' rent is common.
U: What about my pottery wheel? It weighs about 80 kilos.
A: It might be cheaper to sell it and buy another in Vienna than to ship it, unless it has sentimental value. A kick wheel that heavy would need a freight company or a shared van. Check the local listings in Vienna first to see how easily you could find one there.
U: Sigh, I'll sell it. I only bought it last month. Giulia called to say the wedding is on 15 June and asked me to start thinking about the speech.
A: That's a lovely weekend to look forward to after settling in Vienna. For the speech, start by jotting down memories: a funny story from childhood, a moment that shows who Giulia is, and when you first met Marco. We can shape it whenever you want.
U memory: We once got lost in the fog near Lake Orta for four hours and she kept singing Mina songs to keep me calm. That's the story.
A: That's a beautiful story; it shows her kindness and her humour, which is exactly what a speech needs. You could open with it and then connect it to Marco: she's the kind of person who keeps singing in the fog, and now she's found someone who sings with her.
U: Oh, that's good, I'm stealing that. Dinner tonight was risotto with peas and far too much parmesan. Comfort food for a big decision.
A: Perfect choice. Risotto is the ideal dish for celebrating and calming your nerves at the same time.
U tutor: And I booked my first session on italki, with a nurse from Graz called Birgit, to practise talking.
A: Someone who is a nurse herself is ideal: she can teach you ward vocabulary, handover phrases and Austrian expressions. Ask her to role-play talking to a worried parent, since that's where you'll need the language most.
"""),
    ("6:05 pm on 5 May, 2024", """
U home2: I'm in Vienna! The hospital found me a furnished studio in Leopoldstadt for three months, near the Augarten. It's tiny but it's clean.
A: Welcome to Vienna! The Augarten is a lovely park to have nearby, and Leopoldstadt is well connected. How was your first week?
U: Exhausting. Everyone speaks Viennese dialect quickly and I understand maybe half. But kids are kids everywhere.
A: Half in the first week is actually good; the dialect is hard even for Germans. Ask colleagues to slow down, they usually will. Keep a small notebook for phrases you hear again and again at handover and look them up after your shift.
U: A colleague said I need to register my address somewhere? Is that real?
A a_meldezettel: Yes, it's a legal requirement. In Austria you must register your address within three days of moving in, using a form called the Meldezettel, which your landlord (or whoever provides the flat) needs to sign. You take it to the registration service at any district office, the Magistratisches Bezirksamt, with your passport, and you'll get a confirmation that you need for banking, your employment contract and your e-card.
U: Three days! I'm on day four. Going tomorrow morning.
A: Don't worry too much; a day late for a newcomer is usually handled with a friendly nod. Go early in the morning to avoid a queue and bring the signed form and your passport.
U: Other news: the Lyon flat is sublet to a friend's cousin until the end of the year, so that's one less worry.
A: Excellent, that gives you time to decide whether to let it go entirely. Make sure the sublet is allowed under your lease and that your landlord knows, to avoid problems later.
U: My first Viennese meal was Wiener schnitzel, obviously. The second was a Käsekrainer from a Würstelstand at midnight after a late shift.
A: The full Viennese welcome! A Würstelstand after a late shift is a local tradition. Most people would tell you to try a Kaiserschmarrn next, but since you're not a dessert person, maybe a Gulasch at a Beisl instead.
U: Ha, you remember. I'm going to look for a pottery studio here; my hands miss the clay.
A: Vienna has quite a few open ceramics studios where you pay a monthly fee to use the wheels and kilns. Look for "offenes Atelier" or "Keramikstudio", ideally with courses in German; it's also a good way to meet people outside work.
U: Also, Giulia sent photos of the dresses. I don't like any of them, and I can't say that.
A: Focus on what you genuinely like about each one: the fabric, the colour, how happy she looks. Ask her which one she feels best in. You don't need to lie, just be her supporter rather than a critic.
"""),
    ("10:30 am on 26 May, 2024", """
U trip_dates2: Bad news for Japan: new staff can't take two weeks off before they've finished six months, so October is out. We moved the trip to 8–22 November.
A: That's a shame, but November is actually a wonderful time to be in Japan, especially Kyoto, where mid to late November is the peak for autumn leaves. Kyoto will be busier then and hotels book early, so I'd reserve accommodation soon, particularly given how much you both dislike crowds.
U: Oh no, busier. Where should we stay in Kyoto to avoid the worst of it?
A a_kyotohotel: Stay a little outside the Gion–Kawaramachi centre but near a subway or Keihan line, so you can get to the sights early. Okazaki, near the Heian Shrine, and the area around Demachiyanagi are quieter and well connected. I'd look at a small machiya guesthouse; for example, Tsuru-ya Machiya in Okazaki has the kind of quiet setting you'd like. Book with free cancellation and check recent reviews.
U: Booked Tsuru-ya for five nights, with free cancellation. Next, the speech. I've got the fog story and your line about singing together. What else?
A: A strong structure for a maid of honour speech: a short greeting and who you are; the fog story; one or two qualities of Giulia that everyone recognises; a warm word about Marco and how you've seen him with her; something for your parents and nonna; and a toast. Aim for three to four minutes, about 450 words in Italian. A line or two in French for the French relatives also makes it personal.
U: Nonna will want something in Piedmontese. I know maybe one proverb.
A: One proverb is perfect, it will delight her. Place it just before the toast, and check the pronunciation with a relative so it lands properly.
U: Another thing: Birgit says I should take the B1 exam in June. Is that too soon?
A: If Birgit, who hears you every week, thinks you're ready, that's a good sign. The ÖSD or Goethe B1 exam tests reading, listening, writing and speaking. Do a mock exam this week to see where you stand, and book a date now, since places fill up. Even if it's a stretch, the preparation itself will push your level forward.
U: Okay, booking the ÖSD for 22 June. And I found a ceramics studio in Ottakring with open wheel hours on Tuesdays and Saturdays.
A: That's a lovely balance to the hospital; Saturday wheel time will be a good reset after the week. Ottakring is nice to explore too: the Brunnenmarkt is nearby, with great fruit and vegetable stalls and Turkish bakeries.
U: Brunnenmarkt is chaos on Saturdays, but the simit are worth it.
A: Go right when it opens and it's much calmer; your crowd-avoiding strategy works in Vienna too.
U: True. Oh, and I need new running shoes, I've been jogging along the Donaukanal after shifts.
A: The Donaukanal path is a great route. If you've had any pain, go to a specialist running shop for a gait check; otherwise a neutral daily trainer like the ASICS Novablast or Brooks Ghost is comfortable for easy runs.
"""),
    ("4:20 pm on 9 June, 2024", """
U allergy2: I saw the allergist today about the itching in my mouth. It's a birch pollen allergy, and apparently that's why raw apples and cherries make my lips tingle.
A: That sounds like oral allergy syndrome (pollen food allergy), which is common in people allergic to birch pollen, because proteins in some raw fruits look similar to the pollen. Cooking usually breaks those proteins down, so apple cake or stewed cherries are often fine while raw ones aren't. Did the allergist say anything about nuts? Hazelnuts can cause the same reaction.
U: She said hazelnuts might too, but cooked fruit should be fine. Spring here with all the birch trees has been awful.
A: Vienna has a lot of birch, and its pollen season is mostly March to May, so the worst is over for this year. Next spring, start a daily non-drowsy antihistamine a couple of weeks before the season, and ask your allergist about immunotherapy if it's severe. The Austrian pollen warning service, pollenwarndienst.at, has forecasts.
U: Giulia's wedding is on Saturday. I fly Friday and I'm back Monday morning for an early shift.
A: That's a tight turnaround, but doable. Pack the speech on paper in your hand luggage, and give a printed copy to someone else just in case. Have you finished it?
U: Mostly. Can you check the ending? "Alla nostra Giulia, che canta anche nella nebbia, e a Marco, che adesso canta con lei. Salute!"
A: It's lovely, and it ties back to the fog story perfectly. One small thing: for a wedding toast, "Evviva gli sposi!" is more usual than "Salute!" on its own, and it brings both of them in. So you might end: "...e a Marco, che adesso canta con lei. Evviva gli sposi!"
U: Evviva gli sposi, yes. I keep crying while practising.
A: That's okay, it means the speech is honest. Practise it enough that it gets easier; on the day, pause, breathe and look at Giulia. Everyone will be crying with you.
U: Different topic: we're cooking for the family lunch the day after the wedding. What should I make that I can actually eat?
A: Given your allergies, make something you know is safe, so you have at least one dish: vitello tonnato, a big tray of melanzane alla parmigiana, or agnolotti del plin with butter and sage if you have time. You'll be busy, so the parmigiana, which you can make the day before, might be best.
U: Parmigiana, perfect, Giulia loves it. The German exam is the week after. I'm not sleeping much.
A: A lot is happening at once: the wedding, shifts, the exam. Keep the plan simple: two timed mock exams this week, speaking practice with Birgit, then nothing new in the last two days. The exam tests usable language, and you use German every day at work, which is the best preparation there is.
U: I'm going to a barbecue with colleagues tonight and everybody's bringing salads. I wanted to make a fruit salad, but now I'm scared.
A: You can still make one with fruits that are less often a problem with birch pollen, such as melon, grapes, citrus, pineapple and mango, and leave out the raw apples and cherries. Or bring a bean salad, which is more useful at a barbecue anyway.
"""),
    ("9:00 pm on 30 June, 2024", """
U: The wedding was perfect. The fog story got laughs, nonna cried at the proverb, and I only cried twice.
A: That sounds wonderful! The nonna moment must have been special. How was Giulia?
U: Radiant. She and Marco rode away from the church on a tandem, which is very them.
A: What a memorable exit! That will be the photo everyone remembers. Did you get any rest afterwards before your shift?
U german2: Not really, but it didn't matter: I got my results and I passed the B1 exam! Speaking was my best part.
A: Congratulations! Passing B1 a few months after being stuck at A2 is impressive, especially while working shifts in a new country. It's great that speaking was your strongest part; that's the skill you use with families. Is B2 the next step for your registration?
U: Yes, the nursing registration needs B2 eventually. But I want a summer off from exams.
A: That's well deserved. You'll keep improving just by working in German. Keep it light over the summer, with podcasts, Austrian TV and a novel in German, and start a B2 course in the autumn.
U: The ceramics studio in Ottakring has been a lifesaver. I made a set of four cups, but the glaze came out greener than I expected.
A: Glazes often change colour in the kiln, depending on how thickly they're applied, the clay body and the firing temperature. Make a few test tiles with different thicknesses next time and write down what you did, so you can repeat the ones you like.
U: The studio teacher, Jana, says the same thing: test tiles. Okay. My furnished studio ends at the end of July and I haven't found anything yet.
A: That's getting close. Widen your search to more districts, set up alerts on willhaben and immobilienscout24, and think about a cooperative (Genossenschaft) flat for the long term, although the waiting lists are long. For viewings, bring a folder with your employment contract, payslips and ID so you can apply on the spot.
U: There's a two-room flat in the 7th district, near Spittelberg, that I'm seeing on Tuesday.
A: The 7th is a lovely area, lively, with lots of cafés and small shops, and well placed between the centre and the Westbahnhof. It tends to be a bit pricier than the outer districts. Do you know the rent?
U: €980 a month including heating and service charges, which I can manage.
A: That's reasonable for two rooms there. Ask about the contract term (many are fixed at three years), the deposit and whether there's an agent. Since a 2023 change in Austria, tenants no longer pay the agent's commission when the landlord hired the agent.
U: Good to know. Also, Amélie wants to cut Osaka and add somewhere quieter in Japan. She's reading about Kanazawa.
A: Kanazawa would suit you both: it's known for the Kenroku-en garden, a well-preserved samurai district and old teahouse quarters, and it's much calmer than Osaka. Since the Hokuriku Shinkansen connects it to Tokyo, you could do Tokyo, then Kanazawa, then Kyoto.
"""),
    ("11:45 am on 21 July, 2024", """
U home3: I got the flat! I've been living in Neubau since Saturday: two rooms, a balcony and a view of a chestnut tree.
A: Congratulations! A balcony and a chestnut tree sound perfect. Don't forget the Meldezettel for the new address, within three days.
U trip3: Already done, I'm a pro now. And we made the call for Japan: Osaka is out, so the plan is now Tokyo, Kanazawa and Kyoto.
A: Great choice for two crowd-averse travellers. A good split for two weeks would be Tokyo five nights, Kanazawa three and Kyoto five, with one flexible day. Take the Hokuriku Shinkansen from Tokyo to Kanazawa (about two and a half hours), then continue to Kyoto by Shinkansen and the Thunderbird limited express, changing at Tsuruga since the line was extended this spring.
U: What should we not miss in Kanazawa?
A a_kanazawa: Go to Kenroku-en right at opening, early in the morning, to have it almost to yourselves, then walk to the Higashi Chaya district and the 21st Century Museum of Contemporary Art; book its special exhibitions online. The Nagamachi samurai district is quiet and beautiful in the late afternoon. Omicho Market is famous for seafood, so be careful there, but Amélie can find vegetable dishes and you can both try the local Kaga vegetables.
U: Kenroku-en at opening time, that's our kind of travel. I'm going to need a lot of furniture for this flat.
A: A fun project. Start with a bed, a table and good light, then take your time with the rest. Vienna has great second-hand options: willhaben, the city's 48er-Tandler reuse shop, and the flea market next to the Naschmarkt on Saturdays.
U armchair: I went to the Naschmarkt flea market this morning and bought a green armchair for €40. It matches my cups.
A: A €40 armchair that matches your handmade cups sounds like destiny. Is it sturdy? Older upholstery sometimes needs a professional clean.
U t_cat: It's sturdy and smells vaguely of cigars. Also, I'm thinking about getting a cat now that I have a real place.
A: A cat would suit a flat with a balcony, as long as you net the balcony for safety. With shift work, adopting two cats who are already bonded can be kinder, because they keep each other company. The Vienna animal shelter has plenty of cats looking for homes.
U: I'll think about it after Japan. One more question: what's a good dinner for a hot evening? It's 34 degrees and my kitchen is a sauna.
A: Go no-cook: a panzanella with ripe tomatoes, cucumber, red onion and stale bread; a cold soba salad with a sesame dressing (check the label for shrimp); or a chilled cucumber and yoghurt soup with dill and walnuts.
U: Panzanella, my mother's recipe. Thank you.
A: Enjoy it on the balcony under the chestnut tree.
"""),
    ("7:15 pm on 11 August, 2024", """
U job3: Big change at work: I've been moved from the general ward to the neonatal intensive care unit. They were short-staffed and I had NICU experience from Lyon.
A: That's a big step and a sign they trust you. Neonatal intensive care is demanding in a different way: tiny patients, very precise medication, and supporting parents through frightening times. Ask for a structured orientation with a preceptor even with your experience, since equipment and protocols differ between hospitals.
U preceptor: I have a preceptor, Klaus, very calm, thirty years in neonatal care. The German is harder though, lots of new vocabulary.
A: Make your own NICU glossary: equipment (Inkubator, Beatmungsgerät, Monitor), common conditions, and phrases for parents. Review it on the tram. Klaus will probably correct you if you ask him to.
U german3: About German: I signed up for a B2 course at the Volkshochschule, Tuesday and Thursday evenings from September. The summer off is over.
A: Good timing. A B2 course with a fixed schedule will keep you on track, and it's the level your registration needs. Tell the teacher about your shifts early, since you may miss some sessions, and ask which textbook they use so you can catch up.
U: What about Birgit? I don't want to stop the sessions with her.
A: Keep her, but change the focus: use the course for grammar and structure, and Birgit for speaking and nursing situations, for example role-playing conversations with NICU parents. Once a week, or every two weeks in busy periods, is enough.
U: Yes. Okay, travel question: what should I pack for Japan in November?
A: Layers: it can be mild in the day (15 to 18 °C in Kyoto) and cold in the mornings and evenings, and Kanazawa is often rainy, so bring a waterproof jacket and shoes. Slip-on shoes are handy because you take them off in temples and guesthouses. Bring your allergy cards, two EpiPens, antihistamines and a doctor's letter for the EpiPens.
U: Good reminder about the letter. Amélie booked our flights, Vienna to Tokyo via Helsinki.
A: Helsinki is a good connection. Keep your EpiPens in your hand luggage with the doctor's letter, and tell the airline about your allergy in advance.
U: Other question: I'm making Sunday lunch for my new colleagues. I'm thinking a big pot of something.
A: A pot of Piedmontese brasato, beef braised in Barolo, with polenta would be a lovely way to share your family's cooking, or a vegetable lasagne if there are vegetarians. Both can be made ahead.
U t_lunch: Brasato with polenta, like at nonna's. Klaus is bringing a Sachertorte, which means I'll have a very small slice.
A: A very small slice is a perfectly good compromise for someone who doesn't love sweets. Enjoy the lunch!
"""),
], [
    ("Which craft did I take up in Lyon?", "pottery (throwing on the wheel)", "hobby", 11),
    ("Who is my online language coach?", "Birgit, a nurse from Graz", "tutor", 11),
    ("What is my sister's husband's name?", "Marco", "fiance", 11),
    ("What seafood am I unable to eat?", "shellfish, prawns especially", "allergy1", 11),
    ("In which city was my sibling's wedding held?", "Turin", "family", 11),
    ("Who is mentoring me in the baby ward?", "Klaus", "preceptor", 11),
    ("What piece of furniture did I buy secondhand?", "a green armchair, for €40", "armchair", 11),
    ("Where do I live now?", "a two-room flat in Neubau, Vienna", "home3", 12),
    ("Which unit do I work on?", "the neonatal intensive care unit (NICU)", "job3", 12),
    ("Which cities are on my Japan itinerary?", "Tokyo, Kanazawa and Kyoto", "trip3", 12),
    ("What level of German am I studying for these days?", "B2 (a course at the Volkshochschule)", "german3", 12),
    ("When is my Japan trip?", "8–22 November", "trip_dates2", 12),
    ("I'm making a fruit salad for lunch; what should you leave out of it for me?", "raw apples and cherries",
     "allergy2", 13),
    ("What kind of sights should you suggest for my trips?", "quiet places away from crowds", "pref_crowds", 13),
    ("Should you suggest a dessert when I ask what to bring to a party?",
     "no, she doesn't like sugary things; suggest something savoury", "pref_sweet", 13),
    ("Which ingredient must the recipes you give me never contain?", "shellfish (crustaceans)", "allergy1", 13),
    ("Which free German course did you recommend?", "Deutsche Welle's Nicos Weg", "a_german", 14),
    ("Did you think the JR Pass was worth it for our route?",
     "no, individual tickets are cheaper since the October 2023 price rise", "a_jrpass", 14),
    ("Which guesthouse in Kyoto did you suggest?", "Tsuru-ya Machiya in Okazaki", "a_kyotohotel", 14),
    ("What did you tell me I must do within three days of moving into a flat in Vienna?",
     "register my address with a Meldezettel", "a_meldezettel", 14),
    ("Which district did I live in when I first moved to Vienna?", "Leopoldstadt, near the Augarten", "home2", 15),
    ("Which ward did I work on before the NICU?", "the general paediatric ward", "job2", 15),
    ("What was our original Japan itinerary?", "Tokyo, Kyoto and Osaka", "trip1", 15),
    ("Which cities have I lived in this year, in order?", "Lyon, then Vienna (Leopoldstadt, then Neubau)",
     "home1 home2 home3", 16),
    ("How has my German progressed this year?", "stuck at A2, passed B1 in June, now taking a B2 course",
     "german1 german2 german3", 16),
    ("What dish did I settle on last Sunday?", "brasato with polenta", "t_lunch", 17, "8:00 pm on 14 August, 2024"),
    ("What pet was I considering three weeks ago?", "a cat", "t_cat", 17, "8:00 pm on 14 August, 2024"),
])

conversation("chat-marcus", "Marcus", [
    ("8:10 pm on 3 September, 2023", """
U weight1: Right, I need a kick up the backside. Went to the GP for a check-up and the scales said 104 kilos. She also said my blood pressure is creeping up, and I'm only 41.
A: That's a tough thing to hear, but catching it at 41 is good timing. Blood pressure often responds well to losing some weight, moving more, cutting back on salt and alcohol, and sleeping better. Did she give you a target or suggest any follow-up?
U goal1: She wants to see me again in six months. My goal is to get under 95 kilos by then. I've got two kids, Ellie's nine and Noah's six, and I want to be able to keep up with them.
A: That's a great reason and a realistic goal: nine kilos in six months is about 350 grams a week, which is sustainable. The biggest levers are usually what you eat and drink most days, plus regular activity you actually enjoy. What does a typical day look like at the moment?
U: Desk job in logistics, biscuits at eleven, a meal deal at lunch, whatever the kids don't finish at tea, then a couple of beers in front of the telly.
A: Very normal, and there's lots to work with. A few swaps with big effects: fruit or a yoghurt instead of the eleven o'clock biscuits, a homemade lunch a few days a week, your own plate at tea rather than grazing the kids' leftovers, and beers at weekends only. None of that requires a special diet.
U diet1: A mate at work swears by keto, he lost twelve kilos. I started on Monday: no bread, no pasta, no potatoes. Eggs and bacon every morning.
A: Keto works for some people, mostly because it cuts out a lot of easy snacking. A few cautions: the first week or two can bring headaches and tiredness (the so-called keto flu), it's hard to sustain around family meals, and with your blood pressure it's worth watching processed meats like bacon, which are very salty. Plenty of vegetables and some chicken will help. Check with your GP if you plan to stay on it long term.
U gym1: I've also joined the PureGym at Cribbs Causeway, it's on my way home from work. £24 a month.
A: Good choice, convenience is what makes a gym stick. A simple starting plan: three visits a week, 20 to 30 minutes on a bike or cross-trainer at a pace where you can still talk, plus a basic strength circuit (leg press, chest press, seated row, plank). Ask for the free induction so you know how the machines are set up.
U car1: The only problem is getting there. Our car is a 2012 Vauxhall Zafira and Jess needs it most days, so I'll probably cycle.
A: Cycling there would be great extra exercise. The roundabouts around Cribbs Causeway are busy, though, so plan a route that uses the cycle paths where you can, get good lights for the darker evenings, and wear something bright.
U wife: Jess works at Southmead delivering babies, so her shifts are all over the place. When she's on nights it's just me and the kids.
A: Shift work in a maternity unit is relentless, and so is solo parenting in those weeks. Build your exercise around her rota rather than fighting it: on her night weeks, do short home workouts after the kids are in bed (twenty minutes of bodyweight circuits), and save the gym for the days she's home.
U: Good shout. How old should kids be before you can leave them for half an hour? Asking for a gym trip.
A: There's no legal age in the UK, but the NSPCC advises that children under 12 are rarely mature enough to be left alone for long. With a nine and a six-year-old, it's better not to; a home workout or a family bike ride is the safer plan.
U: Fair. Family bike ride it is. Ellie will love it, Noah will moan.
A: Then make it worth it for Noah: a ride that ends at a playground or a café with a hot chocolate makes most six-year-olds a lot more enthusiastic.
"""),
    ("7:30 am on 24 September, 2023", """
U: Three weeks in and the belt's gone in a notch. Keto flu was real though; on day four I wanted to bite someone.
A: Well done on getting through it, the first weeks are the hardest. A notch on the belt is a better sign than the scales, which jump around with water, especially on low-carb diets. How's the energy now?
U pref_outdoor: Better. But I tried the treadmill at the gym and hated every minute, staring at a wall for half an hour. I'd much rather be outside, even in the rain.
A: Then don't force the treadmill. Walk-run intervals on the Bristol and Bath Railway Path or around the Downs would give you the same workout with something to look at. Use the gym for strength work and the bike, and do your cardio outdoors.
U: The Railway Path's ten minutes from us. Ellie's started with a girls' football team, the Filton Foxes, training on Saturday mornings, so I can run while she trains.
A: That's a perfect slot: she trains, you run, nobody waits around. Take a flask and some water for both of you, and a warm layer for standing on the touchline at matches.
U: Packed lunches question: Ellie wants something other than ham sandwiches. Ideas?
A: Some easy ones: chicken and salad wraps, cold pasta salad with sweetcorn and tuna or cheese, homemade pizza muffins, a "picky bits" box with crackers, cheese cubes, cucumber and grapes, or leftover sausage pasta in a small flask. Let her choose two for the week so she's invested.
U: Noah only eats beige food at the moment. Pasta, toast, chips, repeat.
A: Very common at six. Keep offering small amounts of other foods next to the beige ones without pressure, involve him in cooking, and try "bridge" foods like sweet potato fries or wholemeal pasta. It's a phase for most kids.
U: And I'm bored of bacon and eggs every morning already.
A: Keto-friendly breakfasts that aren't bacon: Greek yoghurt with berries and a few nuts, an omelette with spinach and feta, chia pudding made with milk, or smoked mackerel on cucumber slices. The yoghurt option is quick on busy school mornings.
U holiday1: Jess wants to book something for October half-term. We're thinking a cottage near St Ives in Cornwall.
A: St Ives in late October is lovely and quieter than summer. With kids, look at cottages within walking distance of Porthmeor beach, the Tate St Ives, and rock pooling at low tide. Book soon, as half-term weeks go fast, and check whether the cottage has parking, since St Ives is tricky with a car.
U: Booked, five nights, a cottage up the hill with a parking space. The kids are already packing buckets.
A: Brilliant. Bring waterproofs for everyone; Cornish weather in October can do four seasons in a day.
"""),
    ("9:20 pm on 15 October, 2023", """
U diet2: Confession: I've packed in keto. I was cranky, I couldn't eat with the kids, and I dreamt about toast. Going Mediterranean now, like the GP suggested: lots of veg, beans, lentils, olive oil, wholegrain bread, a bit of chicken.
A: That's a very sensible switch. The Mediterranean pattern has strong evidence for blood pressure and heart health, and it's much easier to share with a family. Watch portions of bread and olive oil, which are easy to overdo, and keep the snacking changes you made.
U knee: Also my right knee's been aching after the gym, around the kneecap, and it's worse going downstairs.
A: Pain around the kneecap that's worse on stairs often points to patellofemoral pain, which is common when activity increases quickly. It's worth seeing a physiotherapist to confirm. In the meantime, reduce what aggravates it, avoid deep squats and lots of stairs, and keep moving gently.
U physio: Saw a physio called Tom at the clinic near work. He reckons it's basically runner's knee, from doing too much too soon and cycling with my saddle too low.
A: That fits, and it's very treatable. Raising the saddle so your knee is only slightly bent at the bottom of the pedal stroke often helps straight away. Did he give you exercises?
U: He did, on a sheet that I've already lost. What usually helps?
A a_knee: Typical exercises for runner's knee are: step-downs from a low step, slow and controlled, keeping the knee in line with your toes; wall sits, holding 30 seconds and building up; clamshells and side-lying leg raises for the hip muscles; and straight-leg raises. Three sets of ten most evenings. Ask Tom to email you the sheet so you do exactly what he intended, and stop any exercise that makes the pain sharp.
U: I'll email him. St Ives was great, by the way. Noah found a starfish and named it Steve.
A: Steve the starfish is an excellent name. Sounds like a proper family holiday. Did you manage to move much while you were there?
U: Walked loads, the coast path to Zennor one day. Kids complained for the first hour and then loved it.
A: That's the classic pattern. The coast path is a great workout, too, with all the ups and downs, and much more interesting than a gym.
U: Ellie scored her first goal on Saturday. She did a knee slide and ripped her trousers.
A: That's the most Ellie way to celebrate! Worth every ripped trouser. Football at nine is the best age: all joy and very little pressure.
U: Mediterranean dinner idea for tomorrow? Something the kids will eat.
A: Try a one-tray chicken and vegetable traybake with paprika, garlic and olive oil, served with couscous, or a big pot of lentil and tomato pasta sauce that Noah will accept because it's on pasta. Both take half an hour and make leftovers for lunch.
"""),
    ("6:45 pm on 5 November, 2023", """
U goal2: New goal! A guy at work did a triathlon, and I've entered the Chew Valley Sprint in May: 400 m swim, 20 km bike, 5 km run.
A: That's a brilliant goal, and a sprint is an ideal first triathlon. Six months is plenty of time if you train consistently: two swims, two rides and two runs a week at first, mostly easy, with one brick session (a bike followed by a short run) a week later on. How confident are you in each discipline?
U: Bike's fine, running's okay now the knee's settled. Swimming's the problem. I can do about two lengths of front crawl before I'm gasping.
A a_swim: That's where most adults start. The gasping is almost always breathing, not fitness: breathe out steadily underwater through your nose and mouth, so you only need to breathe in when you turn your head. Drills that help: kicking with a float while practising the exhale, the catch-up drill (one hand waits at the front until the other arrives) to slow your stroke down, and breathing every three strokes. An adult improvers class once a week would speed things up a lot.
U gym2: I've cancelled PureGym and joined Horfield Leisure Centre instead. It's got a 25 m pool and a gym, £38 a month, and it's ten minutes from home.
A: That makes a lot of sense now that swimming matters. Check the lane swimming timetable and go when the lanes are quiet, early mornings or late evenings. They usually run adult swim lessons too.
U: Knee's much better. I've been doing the exercises every night while watching telly.
A: Great consistency. Keep doing them even when it feels fine, especially as the running increases; they're what keeps it from coming back.
U: What do I actually need to buy for a triathlon? I don't want to spend a fortune.
A: Less than people think for a sprint: goggles and a swim cap, a tri suit (or swim in shorts and pull on a top), a helmet, your current bike, running shoes with elastic laces, and a race belt for your number. A wetsuit is often needed for open water in May, but you can rent one for the season.
U pref_used: I'll get everything second-hand where I can. I hate paying full price for kit, Facebook Marketplace is my best friend.
A: That's very doable: wetsuits, bikes and tri suits come up second-hand all the time, often barely used after someone's one race. Check wetsuits for tears around the neck and seams, and try them on before buying; fit matters more than the brand.
U: Jess has got her first Christmas rota and she's working Christmas Day. Kids are gutted.
A: That's hard. Many families in that situation pick their own Christmas day, like the 27th, with the full stockings-and-dinner routine. Kids tend to be fine with it if it's framed as a special extra Christmas.
U: We'll do the 27th. Noah has already asked if Father Christmas can come twice.
A: Negotiations with Father Christmas are above my pay grade, but one stocking on the 25th and the main presents on the 27th is a popular compromise.
"""),
    ("8:00 pm on 10 December, 2023", """
U noah: Noah screams whenever his face gets splashed at his swimming lessons. The teacher's lovely, but he's miserable.
A: That's very common, and it's usually fixable with time and gentle practice outside lessons. Is he scared of the water in general, or just of his face getting wet?
U: Just the face thing. He's happy jumping about as long as his head stays dry.
A a_noah: Then practise at bath time, where he feels safe. Let him wear goggles in the bath, blow bubbles into the water, pour water over his own head with a cup (he's in control), and make it a game: find toys at the bottom, count how long he can blow bubbles. Praise every small step and never splash him by surprise. Most kids make real progress within a few weeks.
U: Goggles in the bath, he'll think that's hilarious. OK, money. We said £600 for Christmas: presents for the kids, food and the in-laws. I think we've already spent 400.
A: It's easy to overshoot in December. List what's left to buy with a price next to each item, then see what's essential. Food can be trimmed by planning the Christmas dinner menu now, using supermarket own brands and ordering early to avoid last-minute top-up shops.
U: Ellie wants football boots, Noah wants a dinosaur that roars. Those are the big ones.
A: Those are reasonable. Football boots second-hand are often barely worn, since kids grow out of them quickly, which would fit your love of used kit. The dinosaur is non-negotiable, obviously.
U: Ha. I've also started a woodworking project in the garage: a shelving unit for the kids' room. First time I've used a router.
A: Nice project. With a router: clamp the workpiece firmly, take shallow passes rather than one deep cut, feed against the rotation of the bit, wear eye and ear protection, and unplug it when changing bits. Practise on offcuts first.
U: What wood should I use, pine or oak?
A: Pine is cheaper, lighter and easy to work, but it dents easily, which matters in a kids' room. Oak is tougher and looks great but costs much more and is harder on tools. A middle ground is pine for the frame and oak-faced plywood for the shelves, or solid oak if the budget stretches.
U: I'll go oak, it's going to last. How's my swimming supposed to improve when the pool's full of aqua aerobics?
A: Ask at reception for the lane swim times, there's usually an early session before work. Even two 30-minute sessions a week with drills will move you forward faster than you'd expect.
"""),
    ("2:15 pm on 7 January, 2024", """
U car2: New year, new car! The Zafira's gearbox died over Christmas, so we've bought a second-hand Kia e-Niro, 2020, for £17,000. Our first electric car.
A: Congratulations! The e-Niro is a good family EV with a real-world range of around 230 to 280 miles. A few tips: charge at home overnight if you can, keep the battery between about 20 and 80% for daily use, and use the heat pump and seat heaters in winter to save range.
U: What charger should we get for the drive?
A a_charger: A smart home charger is worth it. The Ohme Home Pro is a good choice: it's reliable, has a small display, and works with tariffs like Octopus Intelligent Go, which gives you cheap electricity overnight (around 7.5p per kWh) and schedules the charging for you. Installation usually costs £800 to £1,000 including the unit. Make sure the installer checks your fuse board first.
U: Octopus, we're already with them. What did we get for the old car, you ask? £450 from a scrap dealer.
A: Better than nothing for a car with a dead gearbox. You'll also save on fuel and servicing now; for a family your size, the running costs of an EV on an overnight tariff are often a third of petrol.
U: Swimming update: I did eight lengths non-stop on Thursday. Eight!
A: That's huge progress from two lengths in November. You're at 200 m, so you're halfway to the race distance already. Keep the drills going and add a length every week or two.
U: I'm also doing Dry January. Day seven and I'm already sleeping better.
A: That's a common early benefit. Alcohol disrupts sleep quality even in small amounts. If it feels good, you might keep some of it after January, like drinking only on Saturday evenings.
U: Jess is on nights all week, so the kids and I are doing a jigsaw marathon.
A: That sounds like a lovely way to spend winter evenings. A 500-piece puzzle for three, with the edges done first so Noah feels involved, is perfect.
U: Noah's doing much better with his face in the water, he blew bubbles at his lesson without crying.
A: That's fantastic, and a real confidence milestone. Tell him how proud you are, specifically about the bubbles, so he knows what he did well.
U: Energy bills question: now that we've got the EV, should we think about solar panels?
A: It can make sense, especially if you're home during the day or get a battery. For a typical 4 kW system in the UK, costs are around £6,000 to £8,000, with payback often in eight to twelve years. Get two or three quotes, check your roof faces south or east-west, and look at the Smart Export Guarantee rates for selling surplus power.
"""),
    ("8:40 pm on 4 February, 2024", """
U weight2: Weigh-in this morning: 96 kilos! Only a kilo off the GP target.
A: That's brilliant, eight kilos down since September. You've done it through steady changes rather than a crash diet, which is exactly what keeps the weight off. How are you feeling?
U diet3: Loads better. Jess and I have decided to go flexitarian as a family: vegetarian during the week, meat only at weekends. It's cheaper, and the GP says it's good for my blood pressure.
A: A great plan, and very Mediterranean in spirit. For weeknight dinners that work for kids: bean chilli with rice, vegetable lasagne, halloumi fajitas, chickpea and spinach curry, or a baked salmon traybake with potatoes and green beans.
U pref_fish: Not the salmon. I can't stand fish, never could, the smell alone puts me off. Veggie stuff's fine though.
A: Noted, no fish. Then for protein on weekdays lean on eggs, beans, lentils, chickpeas, tofu, halloumi and Greek yoghurt. A lentil bolognese on pasta is a good way to get Noah on board.
U: Lentil bolognese, worth a try. Ellie's team lost 7–1 on Saturday and she cried in the car.
A: Poor Ellie. A 7–1 loss at nine feels enormous. Ask her what she enjoyed about the match and what she did well, rather than the score, and maybe get a hot chocolate on the way home. Losing is part of learning to love a sport.
U: The shelving unit is going slowly, I've only cut the sides. Oak is hard work.
A: It really is, but it'll be worth it. Keep your chisels and router bits sharp, since oak blunts tools quickly, and pre-drill every screw hole to avoid splitting.
U: Swim's up to 300 metres. Bike is fine. The run's fine too. What about the transitions?
A: Transitions are free time, so practise them. Lay out your kit in order at home: helmet on before touching the bike, shoes with elastic laces, race belt. Do a few practice runs in the garden so it's automatic on the day. Counting items helps: "helmet, glasses, shoes."
U: Dry January's done. I'm keeping it to Saturday evenings only.
A: That's a great long-term habit. Your sleep, weight and blood pressure will all benefit from it.
"""),
    ("7:05 pm on 3 March, 2024", """
U holiday2: The Cornwall cottage we'd booked for Easter has cancelled on us. Jess found one in Keswick instead, four nights over the long weekend.
A: Annoying, but Keswick is a great swap for a family. Derwentwater is right there, with the launch boats, Catbells is a classic first fell for kids (short, steep and with big views), and there's Whinlatter Forest for bike trails. Pack waterproofs; the Lakes earn their name.
U ellie_gk: Ellie's been made first-choice keeper for the Under-10s. She dives at everything, her knees are permanently muddy.
A: Brilliant! Goalkeeping takes courage, and it sounds like she has plenty. Good goalkeeper gloves make a real difference to confidence, and knee-length padded shorts can save some of the mud and scrapes.
U: Swim: 400 metres non-stop! The full race distance.
A: That's a huge milestone, from two lengths in November to the full distance. Now work on doing it a little faster and more relaxed, and try some open-water swimming in April in a wetsuit at a lake, since it feels quite different from the pool.
U: Curry night on Friday. Can you give me a recipe?
A: Try a Thai green vegetable curry: fry green curry paste, add a tin of coconut milk, then sweet potato, green beans, courgette and chickpeas, simmer for 15 minutes and finish with lime and basil. Serve with rice.
U pref_coconut: Ah, not coconut. Can't stand it, the taste and the texture. Something tomato-based?
A: Of course. A chana masala is perfect: onions, garlic, ginger, cumin, coriander and garam masala, a tin of tomatoes and two tins of chickpeas, simmered for 20 minutes. Add spinach at the end, and serve with rice or naan. Mild enough for kids if you go easy on the chilli.
U: Chana masala it is. Knee question: is it OK to run back-to-back days now?
A: If the knee is pain-free, yes, as long as one of the runs is easy. Build gradually and keep the exercises going. If any pain returns around the kneecap, drop back a step and let Tom know.
U: I'll keep to every other day for now. Jess is doing a half marathon in Bath in March, she's caught the bug.
A: That's brilliant, a family of athletes! Training together on weekends could be lovely, with the kids on bikes beside you.
"""),
    ("9:15 pm on 24 March, 2024", """
U: Gutted. The Chew Valley Sprint has been cancelled, the organisers lost their permit for the lake.
A: That's very disappointing after all your training. The good news is that your fitness doesn't disappear, and there are plenty of other races. Are you looking for another sprint nearby, or something more ambitious?
U goal3: Something bigger. I've entered the Weymouth Olympic-distance triathlon in September instead: 1,500 m swim, 40 km bike, 10 km run. Go big or go home.
A: That's a big step up, roughly four times the swim and double the bike and run, but six months is enough with a careful plan. Build the swim first, since that's the longest relative jump, then lengthen the long ride and long run gradually. Expect to train six or seven hours a week by the summer.
U weight3: And the GP follow-up: 93 kilos, and blood pressure back in the normal range. She was chuffed.
A: Fantastic, that's the goal achieved and then some. Your GP being happy with the blood pressure is the most important result of all. Keep the habits that got you here: the flexitarian meals, the Saturday-only drinks and the training.
U: My bike's a twenty-year-old hybrid. For an Olympic distance I'll need a road bike.
A: For 40 km, a road bike will save you a lot of effort. Second-hand endurance bikes from Boardman, Giant or Specialized with Shimano 105 components are often £400 to £600 and are plenty for a first Olympic race. Get the frame size right and budget for a bike fit.
U: Found a Boardman SLR on Marketplace for £450. It's my size.
A: That could be a great buy. Check the frame for cracks, especially around the bottom bracket and fork, spin the wheels to see they're true, shift through all the gears, and ask when the chain and cassette were last replaced.
U: Noah's got his first swimming badge. Five metres, face in the water the whole way.
A: That's wonderful, and what a journey since December! That's a badge to put on the fridge.
U: We're very proud. Ellie's already asking when she can do a triathlon with me.
A: There are kids' triathlons and aquathlons in the summer for her age, often with short swims in a pool. A family race day could be a great goal for you both.
"""),
    ("5:30 pm on 14 April, 2024", """
U: Back from the Lakes! It rained for four days and the kids loved every minute. Noah got to the top of Catbells and shouted "I'm the king of the mountain".
A: That's a wonderful memory for all of you. Catbells with a six-year-old is a real achievement. Did you manage any training while you were there?
U: Ran round Derwentwater one morning. Best run of my life, nobody about, mist on the water.
A: That's exactly the kind of run that reminds you why you're doing it. Write down how it felt, it's useful on grey training days later.
U shelving: Finished the shelving unit for the kids' room this weekend: oak, six shelves, took me four Saturdays.
A: Congratulations, that's a serious project for a first build. Make sure it's fixed to the wall with anti-tip brackets, since kids will climb anything. A couple of coats of hardwax oil will protect it and bring out the grain.
U: Already fixed to the wall, Jess made sure. What's next in training for Weymouth?
A: Now's the time for the long sessions: one long swim a week building toward 2,000 m, a long ride building toward 60 km, and a long run building toward 12 km. Start open-water swims in May, when lakes like Vobster Quay open, and do one brick session a week from June.
U t_ride: The Boardman's been great, I did 50 km on Sunday.
A: Excellent, you're well ahead of schedule. Make sure you eat on rides over an hour, a banana or a bar every 45 minutes, and practise drinking on the move.
U: Also the knee is completely fine now. Tom signed me off.
A: Great news. Keep a short version of the exercises going a couple of times a week as part of your strength work, especially with the run distance going up.
U: Last one: the e-Niro did the whole trip to the Lakes with two charging stops. Cheaper than the Zafira ever was.
A: That's a great result, and it shows how well an EV can work for family holidays. Motorway services charge more than home, but it's still much cheaper than petrol for a trip like that.
"""),
], [
    ("What position does my daughter play?", "goalkeeper (first-choice keeper for the Under-10s)", "ellie_gk", 11),
    ("Who is treating my leg injury?", "Tom, a physio at a clinic near work", "physio", 11),
    ("What does my wife do for a living?", "she delivers babies at Southmead (a midwife)", "wife", 11),
    ("What is my younger child afraid of?", "getting his face splashed in the pool", "noah", 11),
    ("What piece of furniture did I build?", "an oak shelving unit for the kids' room", "shelving", 11),
    ("How heavy was I when I started?", "104 kilos", "weight1", 11),
    ("Where did we go for the spring holiday?", "Keswick, in the Lake District", "holiday2", 11),
    ("What am I training for?", "the Weymouth Olympic-distance triathlon in September", "goal3", 12),
    ("What car do we have now?", "a 2020 Kia e-Niro, bought second-hand", "car2", 12),
    ("What diet am I following these days?", "flexitarian: vegetarian on weekdays, meat only at weekends", "diet3", 12),
    ("Which gym do I use now?", "Horfield Leisure Centre", "gym2", 12),
    ("How much do I weigh at the moment?", "93 kilos", "weight3", 12),
    ("What protein should you never put in a recipe for me?", "fish", "pref_fish", 13),
    ("Where do I like to do my cardio?", "outdoors, not on a treadmill", "pref_outdoor", 13),
    ("Should you point me to new or used gear?", "used; he buys kit second-hand", "pref_used", 13),
    ("Suggest a curry base for me: coconut or tomato?", "tomato; he can't stand coconut", "pref_coconut", 13),
    ("What did you say would stop me gasping after two lengths of front crawl?",
     "breathing out steadily underwater, plus float kicking, the catch-up drill and breathing every three strokes",
     "a_swim", 14),
    ("Which home charger did you recommend for the car?", "the Ohme Home Pro (with Octopus Intelligent Go)",
     "a_charger", 14),
    ("What exercises did you list for my knee?", "step-downs, wall sits, clamshells and straight-leg raises",
     "a_knee", 14),
    ("What did you suggest to get Noah comfortable with water on his face?",
     "practise at bath time: goggles, blowing bubbles, pouring water over his own head with a cup", "a_noah", 14),
    ("What diet did I try before the Mediterranean one?", "keto", "diet1", 15),
    ("Which gym was I a member of first?", "the PureGym at Cribbs Causeway", "gym1", 15),
    ("What race had I entered before the Olympic distance?", "the Chew Valley Sprint triathlon in May", "goal2", 15),
    ("How has my weight changed since September?", "104 kg, then 96 kg, then 93 kg",
     "weight1 weight2 weight3", 16),
    ("Which diets have I tried, in order?", "keto, then Mediterranean, then flexitarian", "diet1 diet2 diet3", 16),
    ("How far did I cycle last Sunday?", "50 km", "t_ride", 17, "9:00 pm on 18 April, 2024"),
    ("What did the GP tell me last month?", "93 kilos, and blood pressure back in the normal range", "weight3", 17,
     "9:00 pm on 18 April, 2024"),
])

conversation("chat-hana", "Hana", [
    ("9:00 pm on 6 October, 2023", """
U starter: Fed Gus twice today and he doubled in four hours. Three weeks of flour and water and he finally has a personality.
A: That's the sign you've been waiting for: doubling in four to six hours after a feed means the starter is strong enough to raise bread. Use it at or just after its peak, when it's domed and bubbly. Are you planning your first loaf this weekend?
U: Already did it. Five loaves, actually, and people at work keep asking to buy them. I sold three today for $8 each.
A: Coworkers asking to buy your bread after the first bake is a good sign! $8 is a fair friends-and-family price. If you keep selling, note down your costs per loaf (flour, salt, electricity, bags) so you know what you're actually earning.
U work1: I'll do that. I'm at the pharmacy on Pape five days a week, filling prescriptions and answering questions about cough syrup, so weekends are my baking time.
A: Weekend baking works well with sourdough, since you can mix on Friday evening, shape on Saturday morning and proof the dough in the fridge overnight. A long cold proof also gives you more flavour and a more flexible schedule.
U sell1: Right now it's just coworkers and a few neighbours on our street. I bake in my regular oven in two Dutch ovens, two loaves at a time.
A: Dutch ovens are the best way to get a good crust at home because they trap steam. With two you can do about four loaves in an evening. Preheat them for 45 minutes, bake with the lid on for 20 minutes, then lid off for another 20 to 25 until the crust is deep brown.
U mina: One thing I'm careful about: Mina, my seven-year-old, is allergic to tree nuts, cashews and walnuts especially. So nothing with nuts goes into the kitchen.
A: That's a very sensible rule. It also helps if you ever sell more widely: you can honestly say your kitchen is nut-free, which matters to a lot of families. Keep labels from your flour and other ingredients, since some are processed in facilities that handle nuts.
U pref_grams: Good point. Also please, when you give me recipes, use grams. Cups drive me crazy, my flour scoops are never the same.
A: Will do, grams from now on. Baking by weight is much more consistent, especially for bread, where hydration matters. A basic sourdough in grams: 500 g bread flour, 375 g water, 100 g active starter, 10 g salt.
U cat: Perfect. Meanwhile our tabby, Tofu, walked across my shaped dough and left four paw prints on it.
A: A signature loaf! Some bakers would sell that as a limited edition. To keep the counter safe during proofing, cover the dough with a tea towel or a container upside down, or proof in bannetons on a high shelf.
U: Ha, I baked it anyway. It's for us. What should I make for dinner with the leftover bread?
A: Panzanella is great with day-old sourdough; a bread soup like ribollita works too; or French toast for breakfast. For dinner, a Korean-style kimchi fried rice with croutons on top is unusual but delicious.
U: Jae would like the kimchi fried rice, he's the Korean food person in this house.
A: Then use well-fermented kimchi, a spoon of gochujang, some of the kimchi juice, and finish with a fried egg and sesame seeds. The croutons are optional.
"""),
    ("4:30 pm on 22 October, 2023", """
U: This weekend's loaves came out dense and gummy in the middle. What went wrong?
A: Dense and gummy usually means under-fermentation: the dough didn't rise enough in the bulk stage, often because the kitchen was cooler than before. As autumn arrives, the same recipe needs more time. What hydration are you using, and how long was the bulk ferment?
U: The recipe from the starter kit, 70% water, about four hours at room temperature.
A a_hydration: I'd do two things. First, feed Gus at a 1:5:5 ratio (20 g starter, 100 g flour, 100 g water) the night before so he's strong in the morning. Second, go by the dough rather than the clock: let the bulk go until it has risen about 50% and is jiggly with bubbles on the sides, which in a cool kitchen may take six hours. You can also go up to 75% hydration for a more open crumb once the timing is right.
U: 1:5:5, okay. My kitchen is about 19 degrees now.
A: At 19 °C, bulk fermentation can easily take six to eight hours. An oven with just the light on, or a cooler with a jar of warm water inside, makes a good proofing box at 24 to 26 °C.
U korean1: Changing topic: I'm learning Korean so I can talk to Jae's grandmother without him translating. So far it's just Duolingo on my lunch break.
A: That's a lovely reason to learn. Duolingo is fine for getting started with Hangul and basic words, but it's thin on grammar and real conversation. How far along are you?
U: I can read Hangul slowly and say hello, thank you and "I'm full".
A a_korean: Reading Hangul is the most important first step, so you're in a good place. I'd add Talk To Me In Korean: their free lessons explain grammar clearly in English, in a step-by-step order, and the levels build on each other. Keep Duolingo for daily vocabulary, and once a week, try to say a few sentences to Jae's grandmother, even simple ones.
U halmeoni: She lives in Busan and we video call her on Sundays. She laughed when I said "I'm full" and sent me a recipe instead.
A: That sounds like a grandmother who approves. Recipes are a great way into the language, since you can learn food vocabulary and verbs like cut, mix and boil. Ask her to send them as voice messages so you practise listening too.
U pref_raisins: A coworker asked for a cinnamon raisin loaf. I'll make it, but I'm not eating any. Raisins are grapes that gave up.
A: Ha, noted, no raisins for you. For her loaf, add about 15% raisins by flour weight, soaked in warm water for 10 minutes so they don't steal moisture from the dough, plus 2 teaspoons of cinnamon per 500 g flour, swirled in during shaping.
U: Will do. And I should probably figure out the cost thing. Flour went up again.
A: Worth doing now. Add up what you spend on flour, salt and bags over a month, and the electricity for the oven, then divide by the number of loaves. If the cost is around $3 to $4 a loaf, you're making a small profit at $8, but not much for your time.
"""),
    ("8:15 pm on 12 November, 2023", """
U jae_bp: Jae had his physical and his blood pressure is high, 148 over 95. The doctor wants him on a low-sodium diet before talking about medication.
A: That's worth taking seriously, but many people bring their numbers down with diet changes. The usual target is under about 2,000 mg of sodium a day. The big sources are often not the salt shaker but bread, processed meats, soy sauce, instant noodles, kimchi and restaurant food.
U: Kimchi and soy sauce. That's basically half of what we eat.
A: It's a real challenge for Korean home cooking, but there are workarounds. Low-sodium soy sauce has about 40% less salt; you can rinse kimchi before cooking it; and more garlic, ginger, scallions, sesame oil, vinegar and chili give flavour without salt.
U: His favourite is kimchi jjigae. Can it be done?
A a_jjigae: Yes. For a lower-sodium kimchi jjigae: use about half the usual kimchi, rinsed and squeezed, and make up the volume with extra onion, zucchini and tofu; use unsalted homemade anchovy or vegetable stock instead of stock powder; cut the gochujang to one teaspoon and add gochugaru for heat; and finish with a splash of rice vinegar to bring back the tang. It won't be identical, but it's close.
U: I'll try it Sunday. The other thing is Mina's birthday is next week and she wants a big cake.
A: Happy early birthday to Mina! Since she's allergic to tree nuts, homemade is safest. What flavours does she like?
U: Chocolate and strawberries. She's turning eight.
A a_cake: A chocolate sheet cake with fresh strawberries works well and is easy to make nut-free: 250 g flour, 300 g sugar, 75 g cocoa, 2 teaspoons of baking soda, 2 eggs, 250 ml buttermilk, 120 ml oil and 250 ml hot coffee or water. Bake in a 23 x 33 cm pan at 175 °C for 35 minutes, then top it with whipped cream and sliced strawberries. Check that your chocolate and cocoa say nut-free on the label, since many are made on shared lines.
U: Good tip about the cocoa, the one I have says "may contain tree nuts".
A: Then definitely replace it. Brands that label their products as made in a nut-free facility are available at most Canadian supermarkets.
U: Tofu knocked Gus's jar off the counter last night. Glass everywhere, starter on the floor.
A: Oh no! Is Gus gone? If you kept any discard in the fridge, you can revive him from a spoonful. For the future, a plastic container on a shelf Tofu can't reach is safer.
U: I had a backup jar in the fridge, thank goodness. Gus lives.
A: Long live Gus. It's worth always keeping a backup, and you could even dry some on parchment paper as a long-term reserve.
"""),
    ("7:45 pm on 30 November, 2023", """
U sell2: Big decision: I've signed up for a stall at the Saturday market at Riverdale Hall, starting in December. Forty loaves a week to start.
A: Congratulations, that's a big step from coworkers to a real market! Forty loaves is a lot for two Dutch ovens in a home oven, so let's plan the bake schedule: at two loaves per 45 minutes, that's about 15 hours of baking. You may want to start with 20 to 24 loaves and grow.
U: Hmm, you're right. I'll do 24 at first. What should I charge?
A a_pricing: Start from your costs: say $3.50 per loaf for ingredients, bags and electricity. The market fee is per day, so add that spread across the loaves, maybe $1.50 each. So about $5 per loaf before your time. Craft sourdough in Toronto markets usually sells for $9 to $12, so I'd suggest $10 for the plain country loaf, and more for specials like rye or seeded loaves.
U: $10 feels like a lot, but okay. Do I need a licence to sell bread from home?
A a_license: Rules change, so please check with Toronto Public Health directly, but in general in Ontario: you need to tell the local public health unit that you're running a home-based food business so they can assess it; you should have a food handler certificate; and bread is considered a low-risk food. The market will likely also ask for liability insurance and proof of your health unit contact.
U: I'll call them tomorrow. For the market, I want a holiday special. Coworkers suggested a rum fruitcake.
A: A holiday special is a great idea. A fruitcake soaked in rum is traditional, though it needs a few weeks to mature, so you'd have to start this weekend. Do you want to go that way?
U pref_alcohol: Not rum. I don't drink, and I don't cook with alcohol either, it just feels wrong to me.
A: Of course, noted, no alcohol. Alternatives: a panettone-style sourdough with candied orange and chocolate chips (no raisins for you, but customers won't miss them); a cardamom bun loaf; or a cranberry orange sourdough. All are nut-free, which you can advertise.
U: Cranberry orange! That's the one.
A: A classic for the season. Use about 15% dried cranberries and the zest of two oranges per 500 g of flour, and fold them in after the first set of stretch and folds.
U: Jae's blood pressure is already a bit better after two weeks of cooking with less salt.
A: That's great news, and it shows the changes are working. Ask the doctor for a recheck in a month or two, and keep a home log so he can see the trend.
"""),
    ("10:20 am on 17 December, 2023", """
U: First market day: sold out all 24 by 10:30, including eight cranberry orange! I'm still shaking.
A: That's an amazing first day! Selling out before the market is half over means you can definitely bring more next week. Did customers say anything about the price?
U: Nobody blinked at $10. A woman said it was the best rye she'd had since Poland.
A: That's the best compliment a rye baker can get. Note down which loaves went first, so you can plan quantities. And consider bringing more rye next week.
U work2: And some news: I asked my manager to go down to four days at the pharmacy, and she said yes. From January I'll have Fridays for baking.
A: That's a big step, and it will make the market much more sustainable. Friday for mixing and shaping, Saturday morning for baking and selling: a proper baker's schedule. How does it work out money-wise?
U: I lose about $1,000 a month in salary, and I make maybe $600 profit at the market. So we're tightening our belts a bit.
A: That's a reasonable trade-off if it's where you want to go. Keep tracking the numbers monthly and give yourself a checkpoint, say in six months, to decide whether to grow the bakery or step back.
U mom: My mother's flying in from Vancouver for two weeks over Christmas. She wants to help at the stall.
A: That's lovely, an extra pair of hands at the stall and a family holiday all at once. Does she bake?
U: She makes the best mochi, but she's never done bread. I'll put her on the cash box.
A: The cash box is an important job at a busy stall. Set her up with a float of small bills, and a tap payment reader if you don't have one; many market customers no longer carry cash.
U: Good idea, I'll order a Square reader. And for Christmas dinner: Jae's low sodium, Mina's tree nuts, and my mom doesn't eat beef.
A: A roast chicken with lemon, garlic and herbs works for everyone: low sodium if you go easy on the salt and use herbs, no nuts, no beef. Serve it with roasted potatoes, green beans with sesame and garlic, and a rice dish your mom likes.
U: Perfect. Tofu has discovered the Christmas tree.
A: Ah, the classic. Put unbreakable ornaments on the lower branches and anchor the tree to the wall so she can't pull it over.
"""),
    ("6:00 pm on 14 January, 2024", """
U allergy2: Mina had a reaction to a sesame bagel at a friend's house. Hives on her face and she threw up. The allergist did tests today: she's allergic to sesame too.
A: That must have been frightening; I'm glad she's okay. Sesame is one of Canada's priority allergens, so it must be declared on labels. Did the allergist prescribe an epinephrine auto-injector, and does Mina's school know?
U: Yes, an EpiPen for school and one at home. The school's updated her plan.
A: Good. At home, you'll need to check labels again for sesame: many breads, crackers, hummus, Asian sauces and some spice mixes contain it. That includes your own bread: seeded loaves and anything on a surface that has had sesame on it.
U: I've made sesame loaves for the market twice. That has to stop.
A: That's a good call for Mina's safety. It also makes you a nut-free and sesame-free bakery, which is a real selling point for parents of allergic kids. Replace sesame with sunflower, pumpkin or flax seeds on the seeded loaf.
U oven2: Other news: I bought a second-hand Rofco B40 stone deck oven. It's in the basement. I can now bake 12 loaves at once.
A: A Rofco is a big upgrade: three stone decks and steam, made for micro-bakeries. Have an electrician check that your circuit can handle it, and check its insurance implications. Baking 12 at a time will save you hours every week.
U: The electrician put in a new circuit already. First bake on Friday.
A: Exciting. Expect a learning curve: stone decks bake differently from Dutch ovens, so do a test batch and adjust time and temperature. Use a little steam at the start and vent it after 15 minutes.
U: My mom went home. She cried at the airport and then texted me from the plane asking for the cranberry loaf recipe.
A: That sounds like the visit meant a lot to her. You could send her the recipe in grams, she'll have it ready for when you visit Vancouver.
U: I should. And my Korean: I'm on lesson 20 of Talk To Me In Korean level 1.
A: Great progress. By the end of level 1 you'll be able to form simple sentences in the present and past tense, which is enough for short calls with Jae's grandmother. Try writing her a short text message each week.
"""),
    ("9:10 pm on 4 February, 2024", """
U: The first Rofco bake was a disaster, the bottoms burned. The second was perfect.
A: That's the usual story. Stone decks hold a lot of heat, so bottoms burn quickly. What did you change?
U: Turned it down to 230, and I put a baking sheet under the loaves for the first 20 minutes.
A: Smart fix. Many Rofco users bake slightly cooler than a home oven and rotate loaves halfway through for even colour.
U: Lunar New Year is next week. I want to make tteokguk for Jae and call his grandmother while eating it.
A: A beautiful idea. For a lower-sodium tteokguk: make a beef or anchovy broth without salt, season lightly with low-sodium soy and garlic, add the rice cakes and an egg ribbon, and top with scallions and roasted seaweed strips. Skip sesame oil and seeds on Mina's bowl.
U: Right, no sesame for her. I'll practise saying "saehae bok mani badeuseyo" for halmeoni.
A: That's the traditional greeting, "Happy New Year, receive many blessings". She'll be touched. You might also bow, since it's tradition for younger family members on Seollal.
U pref_rye: Market's quiet in February. My favourites to bake are still the dark ryes, the ones with caraway. I could eat a whole loaf of that myself.
A: February is a slow month for most markets, so it's a good time to experiment. A dense Danish rugbrød or a Latvian-style dark rye with caraway would suit both your taste and winter customers. Rye needs a different approach: higher hydration, a sour starter, and baking in a tin.
U: A tin? I don't have any.
A: Pullman tins or simple 1.5 lb loaf tins work well. Grease them well and let the rye proof until cracks appear on the surface. Then let the loaf rest a full day before slicing, since rye keeps setting as it cools.
U: Jae's blood pressure is down to 132 over 84. The doctor says no medication for now.
A: That's a great result! It shows how much the changes at home have helped. Keep going with the lower-sodium cooking and regular check-ups.
U: Mina wants to help at the stall on weekends now. She's taken over the sample plate.
A: Lovely! A kid at the sample plate sells bread. Just keep her away from any customer's snacks, given her allergies.
"""),
    ("8:30 pm on 25 February, 2024", """
U sell3: Big news: Little Kettle, the café on the Danforth, wants my bread. I'll supply them three mornings a week, 30 loaves each time, and I'm giving up the Saturday stall.
A: Congratulations! A regular wholesale customer is a big step: predictable orders and no standing in the cold on Saturdays. Have you agreed on a price and terms?
U: They'll pay $6.50 a loaf wholesale. Less than the market, but they buy 90 a week.
A: That's a typical wholesale discount. At $6.50 and a cost of about $3.50, that's roughly $270 a week profit, more than the market, and more reliable. Make sure you have a simple written agreement covering delivery times, payment terms and what happens if you're sick.
U: Good idea, I'll draft something. How do I deliver 30 loaves before 7 am?
A: Bake the night before or very early morning, and cool the loaves fully on racks before bagging. Use large paper bags or wooden crates, and ask the café whether they'll give you a key or a drop box.
U: Three nights a week of baking is going to be tough with the pharmacy.
A: That's the real question. With the Rofco you can do 30 loaves in about three bakes, so around three hours per night plus mixing. It's a lot on top of four pharmacy days. Is there room to cut back further, or to hire help?
U: I'll think about it. At least Tofu's happy, he loves sleeping on the warm basement floor.
A: A cat who found the warmest spot in the house. Make sure the oven area is safe for him, with no open doors or hot surfaces he can reach.
U: Meanwhile I failed my first Korean phone call without Jae. I froze after "hello".
A: That happens to everyone. Prepare three simple sentences before the next call: what you did today, what you ate, and a question for her. Keeping the conversation to topics you've practised makes freezing less likely.
U: Three sentences. Got it.
A: Good. And remember, she's just happy you're trying.
"""),
    ("7:00 pm on 10 March, 2024", """
U work3: Decision made: from April I'm going down to three days at the pharmacy, Monday to Wednesday. The café orders justify it.
A: That's a big and brave step. With three pharmacy days and three baking nights, you'll have a much more balanced week. Check what it means for your benefits and pharmacy licence hours; some benefits require a minimum number of hours.
U: I checked, I keep my benefits at three days. Jae's very supportive.
A: That's great. Having the benefits secure removes a lot of the risk.
U trip: We're planning a trip to Korea in May. Two weeks: Seoul first, then Busan to see halmeoni.
A: What a wonderful trip. With an eight-year-old, Seoul has a lot for kids: the Lotte World amusement park, the National Museum's children's museum, and Namsan Tower. The KTX train from Seoul to Busan takes under three hours. Have you thought about Mina's allergies while travelling?
U: That's what I'm worried about. Sesame is in everything in Korean food.
A: It really is: sesame oil and seeds are in many dishes, from bibimbap to kimbap and banchan. Carry an allergy card in Korean that explains both tree nuts and sesame, bring two EpiPens, and plan to cook some meals yourself; an apartment rental with a kitchen would help. Halmeoni can probably help too if she knows.
U korean3: I started a weekly Korean class at the community centre on Bloor, Thursday evenings, with a real teacher. I need to be ready for May.
A: Excellent timing. A real class will give you much more speaking practice than apps. Tell the teacher about your trip and ask for practical phrases: ordering food, explaining allergies and talking about family.
U: Help me with the allergy phrase now, please.
A: A simple version: "Je ttal-eun chamkkae-wa gyeongwaryu allereugi-ga isseoyo" means "My daughter has a sesame and tree nut allergy". Ask your teacher to check the pronunciation, and have it printed in Hangul on a card.
U: Thank you. The café wants a seeded loaf now. Sunflower and pumpkin, as you said.
A: That works well, and it's safe for Mina too. Toast the seeds first for extra flavour, and soak them for an hour before adding to the dough so they don't dry it out.
"""),
    ("11:30 am on 23 March, 2024", """
U: Little Kettle sold out of my rye by noon two days in a row. They want a fourth delivery day.
A: That's a great sign. Before saying yes, think about your capacity: with three pharmacy days, a fourth baking night might be too much. Could you increase the quantity on the existing days instead?
U: That's smart. I'll offer 40 loaves on the three days instead of a fourth.
A: That's a good compromise. The Rofco can handle it, and you don't give up another night.
U t_starter: Mina asked if she can have a sourdough starter of her own. She wants to call it Gus Junior.
A: Perfect name. Give her a small jar and let her feed it every day; it's a great way to learn responsibility and science. Start her off with a spoonful of Gus and equal parts flour and water.
U: Another question about the trip. Should we stay in a hotel in Busan or with halmeoni?
A: If halmeoni has room, staying with her for a few nights would be special, especially for her and Mina. For the rest, an apartment nearby with a kitchen gives you the flexibility to cook allergy-safe meals and a bit of space.
U: She insists we stay with her. She's been cooking for weeks in her head.
A: Then that's decided! Let her know about Mina's allergies in detail. Jae can explain the sesame one, which might be a surprise in a Korean kitchen.
U: Last question for today: a bagel recipe. Mina misses bagels since the sesame one.
A: A basic bagel recipe in grams: 500 g bread flour, 300 g warm water, 10 g salt, 7 g instant yeast (or 100 g starter for sourdough bagels), 20 g honey. Knead, divide into 8 balls, shape, rest overnight in the fridge, boil 1 minute per side in water with a spoonful of honey, and bake at 220 °C for 20 minutes. Top them with poppy seeds or everything-seasoning without sesame.
U: Poppy seeds it is. She'll be thrilled.
A: Enjoy bagel morning! Gus and Gus Junior will be proud.
"""),
], [
    ("What's the name of my bread yeast culture?", "Gus", "starter", 11),
    ("What is my pet called?", "Tofu", "cat", 11),
    ("What do I do for work?", "I'm a pharmacist (at the pharmacy on Pape)", "work1", 11),
    ("Where does my husband's grandma live?", "Busan", "halmeoni", 11),
    ("In which city is my mother based?", "Vancouver", "mom", 11),
    ("How old was my daughter in October?", "seven", "mina", 11),
    ("What health issue does Jae have?", "high blood pressure (148 over 95)", "jae_bp", 11),
    ("Where do I sell my bread now?", "to Little Kettle, a café on the Danforth, three mornings a week", "sell3", 12),
    ("How many days a week do I work at the pharmacy now?", "three (Monday to Wednesday)", "work3", 12),
    ("What do I bake my loaves in these days?", "a second-hand Rofco B40 stone deck oven", "oven2", 12),
    ("How am I learning Korean now?", "a weekly class at the community centre on Bloor", "korean3", 12),
    ("What units should you use in recipes for me?", "grams", "pref_grams", 13),
    ("Which dried fruit should you keep out of a loaf meant for me?", "raisins", "pref_raisins", 13),
    ("Can you put wine in a stew recipe for me?", "no; she doesn't cook with alcohol", "pref_alcohol", 13),
    ("What kind of bread do I love most?", "dark rye with caraway", "pref_rye", 13),
    ("What feeding ratio did you tell me to use for Gus?", "1:5:5 (20 g starter, 100 g flour, 100 g water)",
     "a_hydration", 14),
    ("Which Korean course did you recommend?", "Talk To Me In Korean", "a_korean", 14),
    ("What price did you suggest for my plain country loaf at the market?", "$10", "a_pricing", 14),
    ("How did you suggest cutting the salt in kimchi jjigae?",
     "half the kimchi, rinsed; unsalted stock; one teaspoon of gochujang plus gochugaru; a splash of rice vinegar",
     "a_jjigae", 14),
    ("Where did I sell my bread before the café?", "a Saturday stall at the Riverdale Hall market", "sell2", 15),
    ("How many days a week did I work at the pharmacy originally?", "five", "work1", 15),
    ("How was I learning Korean at first?", "Duolingo on my lunch break", "korean1", 15),
    ("What is Mina allergic to?", "tree nuts (cashews, walnuts) and sesame", "mina allergy2", 16),
    ("How has my pharmacy schedule changed?", "five days, then four from January, then three from April",
     "work1 work2 work3", 16),
    ("Who have I sold bread to, in order?",
     "coworkers and neighbours, then a Saturday market stall, then the Little Kettle café",
     "sell1 sell2 sell3", 16),
    ("What did my daughter ask me for last Saturday?", "a sourdough starter of her own (Gus Junior)", "t_starter", 17,
     "8:00 pm on 27 March, 2024"),
    ("What did I sign up for two weeks ago to get ready for the trip?",
     "a weekly Korean class at the community centre on Bloor", "korean3", 17, "8:00 pm on 27 March, 2024"),
])


def main() -> int:
    try:
        counts = check(CONVERSATIONS)
    except ValueError as exc:
        print(f"make_assistant_chats: {exc}", file=sys.stderr)
        return 1
    out = Path(__file__).with_name("assistant_chats.json")
    out.write_text(json.dumps(build(CONVERSATIONS), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    total = sum(counts.values())
    by_cat = ", ".join(f"{CATEGORIES[c]} {n}" for c, n in sorted(counts.items()))
    print(f"wrote {out.name}: {len(CONVERSATIONS)} conversations, {total} questions ({by_cat})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
