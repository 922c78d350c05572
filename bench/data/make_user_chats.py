#!/usr/bin/env python3
"""Writes bench/data/user_chats.json: user-assistant chats the horma developers wrote for this project.

The third dev set beside LoCoMo and LongMemEval, in the LoCoMo JSON format
(horma/bench/locomo.py loads it). It tests what a personal memory must get
right and the other two sets barely ask: questions in other words than the
turn used, facts that change (the latest value is the answer), preferences
stated in passing, what the assistant itself said, and earlier values.

Categories: 11 paraphrase, 12 current value of a changed fact, 13 preference,
14 assistant answer, 15 earlier value, 16 two or more turns.
Run: python bench/data/make_user_chats.py  (rewrites the JSON next to it)
"""

from __future__ import annotations

import json
from pathlib import Path

U, A = "User", "Assistant"

# Each conversation: sessions of (date, [(speaker, text), ...]); questions as (question, answer, [(session, turn)], cat).
CONVERSATIONS = [
    {
        "id": "chat-maya",
        "sessions": [
            ("9:10 am on 4 January, 2024", [
                (U, "Happy new year! I'm finally settling into the flat in Leeds, the boxes are mostly unpacked."),
                (A, "Happy new year! Congratulations on the move. Is there anything you'd like help organising?"),
                (U, "Mostly the kitchen. Also, Biscuit keeps chewing the cardboard, he thinks moving day is a party."),
                (A, "Puppies love cardboard. Offer him a chew toy each time he goes for a box and praise the swap."),
                (U, "Good idea. I work at the library on Park Row now, so I'm out most mornings."),
                (A, "A dog walker for late mornings could help him settle while you are at the library."),
            ]),
            ("6:45 pm on 20 January, 2024", [
                (U, "Can you suggest a quick dinner? I don't eat meat any more, I stopped in December."),
                (A, "Try a chickpea and spinach curry: onion, garlic, ginger, a tin of chickpeas, spinach, coconut milk."),
                (U, "Sounds great, but please never put coriander in anything, it tastes like soap to me."),
                (A, "Noted: no coriander. Finish the curry with lime juice and toasted cashews instead."),
                (U, "Also my partner Sam is coming for dinner on Friday, Sam can't have gluten."),
                (A, "Then serve the curry with rice rather than naan, and check the stock cube is gluten free."),
            ]),
            ("8:30 pm on 14 February, 2024", [
                (U, "I started learning the cello last week, my fingers hurt after every practice."),
                (A, "Sore fingertips are normal for the first weeks; practise in short sessions and the calluses will come."),
                (U, "My teacher is called Mrs Okafor, she wants twenty minutes of scales every day."),
                (A, "Split it: ten minutes of scales before work and ten in the evening with a slow drone."),
            ]),
            ("7:05 am on 3 March, 2024", [
                (U, "I'm training for a 10k in May, I run three mornings a week along the canal."),
                (A, "A good 10k plan: one easy run, one interval session, one long run, and rest days between."),
                (U, "What shoes did you say would suit a beginner on towpaths?"),
                (A, "For gravel towpaths I suggested trail shoes with a moderate grip, for example the Brooks Cascadia."),
            ]),
            ("5:50 pm on 12 April, 2024", [
                (U, "Big news: I got the job at the university archives, I start there in May and leave the library."),
                (A, "Congratulations! Archive work should suit you. Do you need help preparing for the first weeks?"),
                (U, "Maybe later. Biscuit had his vaccinations today and slept the whole afternoon."),
                (A, "That drowsiness is common after vaccinations; he should be back to normal tomorrow."),
            ]),
            ("10:20 am on 25 May, 2024", [
                (U, "I finished the 10k in 58 minutes! Next I want to train for a half marathon in the autumn."),
                (A, "Brilliant time for a first race. For a half marathon, build the long run by a kilometre a week."),
                (U, "Which hotel did you recommend for my trip to Lisbon again?"),
                (A, "I recommended Casa do Largo in Alfama: quiet, near the tram 28 stop, with a roof terrace."),
            ]),
            ("4:15 pm on 30 June, 2024", [
                (U, "We're moving again, Sam and I found a house in York with a garden for Biscuit."),
                (A, "A garden will make a big difference for Biscuit. When is the move?"),
                (U, "The keys are ours on the first of August, so July is all packing."),
                (A, "Pack the rooms you use least first and keep one box of essentials for the first night."),
            ]),
            ("8:00 pm on 15 September, 2024", [
                (U, "The move to York went smoothly, the garden is tiny but Biscuit adores it."),
                (A, "Lovely to hear. How are you finding the commute to the archives from York?"),
                (U, "The train takes twenty-five minutes, I read on the way. I also switched from the cello to piano."),
                (A, "Piano skills will carry over from the cello: reading music and practice habits especially."),
                (U, "I've been eating fish again since August, so I'm pescatarian now rather than vegetarian."),
                (A, "Good to know: salmon, mackerel and sardines add omega-3 to your meals."),
            ]),
        ],
        "questions": [
            ("What is my dog called?", "Biscuit", [(1, 3)], 11),
            ("Which instrument did I first take up?", "the cello", [(3, 1)], 11),
            ("How fast did I run my first race?", "58 minutes", [(6, 1)], 11),
            ("Who teaches me music?", "Mrs Okafor", [(3, 3)], 11),
            ("How long is my journey to work from York?", "twenty-five minutes by train", [(8, 3)], 11),
            ("Where do I live?", "York", [(8, 1)], 12),
            ("Where do I work these days?", "the university archives", [(5, 1)], 12),
            ("What is my diet now?", "pescatarian", [(8, 5)], 12),
            ("Which instrument am I playing now?", "piano", [(8, 3)], 12),
            ("What race am I currently training for?", "a half marathon in the autumn", [(6, 1)], 12),
            ("Which herb should a recipe for me leave out?", "coriander", [(2, 3)], 13),
            ("What should I avoid when cooking for my partner?", "gluten", [(2, 5)], 13),
            ("Which running shoes did you suggest for me?", "Brooks Cascadia trail shoes", [(4, 4)], 14),
            ("What hotel in Lisbon did you point me to?", "Casa do Largo in Alfama", [(6, 4)], 14),
            ("What did you advise about the puppy chewing boxes?", "offer a chew toy and praise the swap", [(1, 4)], 14),
            ("Where did I live before York?", "Leeds", [(1, 1)], 15),
            ("Where did I work before the archives?", "the library on Park Row", [(1, 5), (5, 1)], 15),
            ("What was my diet before I started eating fish again?", "vegetarian", [(2, 1), (8, 5)], 15),
            ("Which cities have I lived in, in order?", "Leeds, then York", [(1, 1), (8, 1)], 16),
            ("How has my running progressed?", "10k in 58 minutes, now training for a half marathon", [(4, 1), (6, 1)], 16),
        ],
    },
    {
        "id": "chat-tomas",
        "sessions": [
            ("11:00 am on 6 February, 2024", [
                (U, "Hi, I'm a nurse on night shifts at St Mary's, so I often write to you at odd hours."),
                (A, "Night shifts are demanding. I'm here whenever suits you. What can I help with today?"),
                (U, "I want to learn Spanish before a trip to Mexico in the summer. Where should I start?"),
                (A, "Start with twenty minutes a day: a course app for vocabulary and a podcast like Coffee Break Spanish."),
                (U, "I'm allergic to peanuts, by the way, so I'll need to be careful with street food there."),
                (A, "Carry an allergy card in Spanish: 'Soy alérgico al cacahuate', and keep your adrenaline pen with you."),
            ]),
            ("3:30 am on 19 February, 2024", [
                (U, "Can't sleep after the shift. My cat Luna knocked my tea off the desk again."),
                (A, "Cats love pushing things off desks. A heavy mug with a lid might save your tea."),
                (U, "I drive an old Fiat Panda to work, and it's making a grinding noise when I brake."),
                (A, "Grinding when braking usually means worn pads; have a garage look soon, it is a safety issue."),
            ]),
            ("2:00 pm on 10 March, 2024", [
                (U, "I budget 300 pounds a month for groceries and I keep going over."),
                (A, "Plan meals for the week, shop with a list and buy staples like rice and beans in bulk."),
                (U, "I prefer cooking big batches on Sundays, I hate cooking after a night shift."),
                (A, "Batch cooking suits you: stews, chilli and soups freeze well in single portions."),
            ]),
            ("9:45 am on 2 April, 2024", [
                (U, "I sold the Panda, the repairs cost more than it was worth. I bought a second-hand Toyota Yaris."),
                (A, "A Yaris is reliable and cheap to run. Remember to update your insurance with the new car."),
                (U, "What podcast did you recommend for Spanish? I lost the name."),
                (A, "I recommended Coffee Break Spanish, alongside twenty minutes a day on a course app."),
            ]),
            ("6:10 pm on 8 May, 2024", [
                (U, "I moved to day shifts at last! I'm now on the children's ward, nine to five."),
                (A, "That's a big change for your sleep. Keep a fixed wake-up time for the first weeks."),
                (U, "I raised my grocery budget to 350 a month, prices keep climbing."),
                (A, "350 is realistic now. Keep tracking and see where the money goes in the first month."),
            ]),
            ("12:30 pm on 21 June, 2024", [
                (U, "The trip is booked: Oaxaca for two weeks in August. My Spanish is getting there."),
                (A, "Oaxaca is wonderful. Try the mole, but ask about peanuts: some moles contain them."),
                (U, "Luna will stay with my sister Ines while I'm away."),
                (A, "Leave Ines Luna's food, the vet's number and a note about her routine."),
            ]),
            ("7:40 pm on 2 September, 2024", [
                (U, "Back from Oaxaca, it was amazing. I even managed to order everything in Spanish."),
                (A, "Wonderful! Ordering in Spanish is a real milestone. Will you keep studying?"),
                (U, "Yes, I signed up for an evening class at the community college, Tuesdays at seven."),
                (A, "A class will give you conversation practice, which apps cannot."),
                (U, "Also I traded the Yaris for an electric car, a used Nissan Leaf, for the daily commute."),
                (A, "A Leaf is great for short commutes; a home charger makes it much easier."),
            ]),
        ],
        "questions": [
            ("What is my pet's name?", "Luna", [(2, 1)], 11),
            ("What am I allergic to?", "peanuts", [(1, 5)], 11),
            ("Who looked after my animal while I travelled?", "my sister Ines", [(6, 3)], 11),
            ("Which hospital do I work at?", "St Mary's", [(1, 1)], 11),
            ("When is my language class?", "Tuesdays at seven", [(7, 3)], 11),
            ("What car do I drive?", "a used Nissan Leaf", [(7, 5)], 12),
            ("What are my working hours now?", "day shifts, nine to five", [(5, 1)], 12),
            ("How much do I spend on food each month at the moment?", "350 pounds", [(5, 3)], 12),
            ("Which ward am I on?", "the children's ward", [(5, 1)], 12),
            ("When do I like to cook?", "big batches on Sundays", [(3, 3)], 13),
            ("What should I be careful about when eating mole?", "peanuts", [(1, 5), (6, 2)], 13),
            ("Which Spanish podcast did you tell me about?", "Coffee Break Spanish", [(1, 4)], 14),
            ("What did you say the noise from my brakes meant?", "worn brake pads", [(2, 4)], 14),
            ("What allergy phrase did you give me for the trip?", "Soy alérgico al cacahuate", [(1, 6)], 14),
            ("What car did I have before the electric one?", "a second-hand Toyota Yaris", [(4, 1)], 15),
            ("What shifts did I work before the children's ward?", "night shifts", [(1, 1)], 15),
            ("What was my grocery budget at first?", "300 pounds a month", [(3, 1)], 15),
            ("Which cars have I owned this year?", "Fiat Panda, Toyota Yaris, Nissan Leaf", [(2, 3), (4, 1), (7, 5)], 16),
            ("How have I been learning Spanish?", "app and podcast, then an evening class", [(1, 4), (7, 3)], 16),
        ],
    },
]


def build() -> list[dict]:
    out = []
    for conv in CONVERSATIONS:
        c: dict = {"speaker_a": U, "speaker_b": A}
        for n, (when, turns) in enumerate(conv["sessions"], 1):
            c[f"session_{n}_date_time"] = when
            c[f"session_{n}"] = [{"speaker": s, "dia_id": f"D{n}:{k}", "text": t} for k, (s, t) in enumerate(turns, 1)]
        qa = [{"question": q, "answer": a, "evidence": [f"D{s}:{k}" for s, k in ev], "category": cat}
              for q, a, ev, cat in conv["questions"]]
        out.append({"sample_id": conv["id"], "conversation": c, "qa": qa})
    return out


if __name__ == "__main__":
    path = Path(__file__).with_name("user_chats.json")
    path.write_text(json.dumps(build(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
