"""Held-out assistant chat: Priya (hand-written for horma's benchmarks; see make_holdout_chats.py)."""
CONVERSATION = {
    "id": "holdout-priya",
    "user": "Priya",
    "sessions": [
        ("8:15 pm on 3 February, 2024", """
U: Right, I need a bit of help getting organised. 2024 has started with about five big life things happening at once and my brain is a browser with forty tabs open.
A: Happy to help untangle it. Want to list the tabs, and we can sort them into things that need a decision soon, things that need a plan, and things that can just sit in a note for now?
U fiance: The biggest one: Tiago proposed on New Year's Day, up on the hill at Roundhay Park in freezing fog, and I said yes before he'd finished the sentence. So now there's a wedding to plan and neither of us has a clue.
A: Congratulations to you both! A foggy hilltop proposal is a good story to have. For the planning, the order that saves most grief is: rough guest count, then budget, then date and venue together, because venues drive almost every other cost and the popular ones book twelve to eighteen months ahead. Do you have a feel for the size, thirty close people or a hundred and twenty with every cousin?
U: Somewhere around 80. The complication is that half of his side would fly in from Portugal. His family are lovely but very, very Catholic and very, very loud.
A: Eighty with a big travelling contingent is very doable. It's worth picking a date far enough ahead that his family can book flights while they're cheap, and a venue that's easy to reach from Leeds Bradford or Manchester airport. Some couples also do a small blessing or a second party in Portugal later for the relatives who can't travel, which takes pressure off the main day.
U inlaws: His mum and dad are in Braga, up in the north, and his avó Rosa lives with them. She's 88, speaks zero English, and has already told him she is coming over "even if she has to swim".
A: She sounds wonderful. That's a very good reason to learn some Portuguese, if you weren't already planning to: even a few sentences on the day, or a toast to her in her own language, tends to mean an enormous amount to grandparents.
U pt1: Funny you say that, I started Duolingo a fortnight ago. I do fifteen minutes on the bus into town every morning. So far I can tell you that the boy eats an apple and the turtle drinks milk.
A: That's a perfectly normal start; the apple-eating boy is a rite of passage. One thing to know is that Duolingo's Portuguese course teaches Brazilian Portuguese, and the family in Braga will speak European Portuguese, which sounds quite different: unstressed vowels get swallowed, and everyday words differ (a bus is um autocarro in Portugal, um ônibus in Brazil). The app is fine for grammar basics, but add some European audio early, such as the Practice Portuguese podcast or RTP programmes, so your ear gets used to the real thing.
U job1: The other tab is work. I've been a manual tester at Airedale Insurance for seven years now, mostly regression testing on their claims system, and I'm bored out of my mind. Same release cycle, same spreadsheets of test cases, same arguments about whether a bug is really a bug.
A: Seven years in one place gives you a lot of depth, and boredom is a fair signal. The common next steps from where you are: a move into test automation (Playwright, Cypress or Selenium with TypeScript or Python), a QA lead or test manager role where you shape the strategy, or a sideways move into business analysis or product. Which part of the job do you still enjoy: hunting down the nasty bugs, or deciding how a team should test?
U: Deciding how we test, definitely. I'm the one who keeps writing little guides for the new starters and arguing that we should be testing earlier. Nobody listens, but I keep writing them.
A: That's the QA lead instinct. Keep copies of those guides: they're exactly the evidence a hiring manager wants when you say you can set a test strategy. It's also worth getting comfortable with one automation tool even if you don't want to be an automation engineer, because most lead roles now expect you to steer a mixed manual and automated approach.
U pref_veg: Noted. Last tab for tonight is dinner. I've been vegetarian since I was fourteen and I'm in a rut: it's been halloumi and roasted veg three times this week. Something new please, nothing too fiddly, it's gone eight already.
A: Try a quick chickpea and spinach shakshuka-style pan. Soften an onion and a pepper in olive oil, add two garlic cloves, a teaspoon each of cumin and smoked paprika and a pinch of chilli flakes, then a tin of chopped tomatoes and a drained tin of chickpeas. Simmer ten minutes, wilt in a couple of handfuls of spinach, make four wells and crack in eggs, lid on for five or six minutes until the whites set. Crumble feta over and eat it with toasted pitta. Twenty-five minutes, one pan.
U: That sounds great, and I have all of it apart from the feta. Would paneer work instead?
A: Yes, it's a good swap. Cut the paneer into small cubes, fry them in a dry pan until golden on a couple of sides, and scatter them over right at the end so they stay slightly crisp rather than going rubbery in the sauce.
U home1: Perfect. We rent a two-bed flat above a launderette on Otley Road in Headingley, and the whole place is going to smell of cumin and fabric conditioner tonight.
A: There are worse combinations. Enjoy it, and whenever you're ready we can make a start on the wedding budget.
"""),
        ("6:40 pm on 24 February, 2024", """
U sport: Hannah from work dragged me along to Boulder Yard in Kirkstall last Saturday for a taster session and I'm completely hooked. I've been back twice already and my forearms feel like they belong to someone else.
A: That's great! The forearm pump is the classic first-month feeling; your tendons and finger strength adapt more slowly than your muscles, so don't go every single day at first. Two or three sessions a week with rest days in between is plenty for the first couple of months. How are you finding the problems?
U grade1: The colour circuits go from white up to black. I can do all the whites and yellows and a couple of the greens, which they said is about V1. The overhang wall just spits me off.
A: V1 in your first week is a really good start. On the overhangs, the usual beginner fix is footwork rather than strength: keep your hips close to the wall, push through your toes, and keep your arms straight so you're hanging off your skeleton rather than holding a pull-up. Watch how the regulars twist their hips side-on into the wall on steep ground; that one move makes a huge difference.
U: The rental shoes are a nightmare though. They squash my toes into a point, so I'm thinking of buying my own.
A: Rental shoes are usually a stiff, flat, generic fit that suits nobody, so buying your own is a reasonable step once you know you'll keep going. Before I suggest any, is there anything about your feet I should know: wide, narrow, high volume, bunions, a second toe longer than the big one?
U pref_feet: Wide, very wide. I've got broad, flat-ish feet and I've always had to buy wide-fit trainers; most normal shoes pinch across the ball of my foot within ten minutes.
A a_shoes: Then avoid the narrower classics like the La Sportiva Tarantulace, which a lot of gyms rent out. For a beginner with broad feet I'd go for the Scarpa Origin: it has a flat, comfortable last with a roomier forefoot, a velcro closure and a soft-ish rubber that's forgiving while you learn footwork. The Evolv Defy is a decent cheaper alternative with a wide toe box. Aim for snug with your toes flat or very slightly curled, never painful; beginner shoes that hurt in the shop won't magically stop hurting. Try them on in the afternoon, when your feet are at their biggest.
U: The Origins are £85 at the shop in town, which is more than I wanted to spend on something I've been doing for a week.
A: Fair. A few options: check the gym noticeboard or local climbing groups for barely worn pairs, since people often size down too aggressively and sell them after a month; look for last season's colours online, which can drop to £60 to £70; or rent for another couple of weeks to be sure. Shoes are the one piece of kit that genuinely changes how it feels on the wall, though, so it's money well spent once you're committed.
U: Side note, Hannah's birthday was at a Thai place on Call Lane on Thursday and I ended up eating rice and prawn crackers while everyone else had curry.
A: That sounds like a frustrating way to spend a birthday meal. Was it the meat, or something else on the menu?
U pref_coconut: Both, really. I'm allergic to coconut, not the anaphylactic kind, but my lips swell and I come out in hives, so I carry antihistamines everywhere, and nearly everything on their menu was either meat or cooked in coconut milk.
A: That's a genuinely tricky combination with Thai and South Indian menus, where coconut milk or cream is in a lot of sauces and sometimes in desserts and dressings too. It helps to phone ahead and ask whether they can do a stir-fry or a jungle curry (gaeng pa, traditionally made without coconut milk) with tofu. At home you can get creaminess from cashew cream, blended silken tofu, yoghurt or oat cream. Also check labels on vegan cheese and some dairy-free ice creams, which often use coconut oil.
U: Cashew cream is a good shout. Is there a curry that's rich like a korma without any coconut?
A: Yes, a cashew-based makhani-style curry works well. Soak 75 g of cashews in boiling water for twenty minutes and blend with a little of the water until smooth. Fry onion, garlic and ginger in butter, add garam masala, a little chilli and a tin of tomatoes, cook it down, then stir in the cashew cream, a spoonful of honey and a squeeze of lemon. Add paneer, chickpeas or roasted cauliflower. It's rich, mild and completely coconut-free.
U: Tiago will want chicken in his, but I can do a separate pan. He's on nights at St James's this week anyway, so it'll be batch cooking for one.
A: That curry suits batch cooking: it freezes well for up to three months. Freeze single portions without the paneer and add it fresh when you reheat, since paneer goes a bit spongy after freezing. Night shifts are brutal, so a few portions ready for him when he wakes up might earn you points.
U: Last thing, the Duolingo owl is furious with me. I missed two days and lost a 20-day streak.
A: The owl is designed to make you feel guilty, so don't let it win. A streak is a motivation tool, not a measure of progress. If you want a more forgiving routine, set a small daily minimum of one lesson and use the streak freeze; the real progress comes from regular listening and speaking, not the number.
"""),
        ("7:55 pm on 16 March, 2024", """
U save1: Wedding money talk. We sat down with a spreadsheet last night. We're aiming for about £14,000 all in, and we've agreed to put £400 a month into a joint wedding pot from now until the day.
A: That's a realistic budget for 80 guests outside London, especially if the venue does a lot of the heavy lifting. £400 a month over roughly fifteen months gives you about £6,000 of new savings; how much do you already have set aside?
U: About £5,500 between us, and Tiago's parents have offered £2,000 towards the meal, because apparently feeding people is non-negotiable in his family.
A a_budget: Then you're in good shape: £5,500 plus £2,000 plus about £6,000 from the monthly pot gets you to £13,500, very close to target. I'd set the pot up as a separate easy-access savings account with an automatic transfer the day after payday, and track spending with sinking funds: one line each for venue, food and drink, outfits, photographer, rings, flowers and a 10% contingency. Every time you pay a deposit, move it from the fund to a 'paid' column so you always know what's left to find.
U venue1: Spreadsheet started. And big news, we booked a venue on Saturday! Whitcliffe Barn, a converted stone barn near Otley with a view down Wharfedale, for Saturday 14 June 2025. We paid a £1,500 deposit.
A: That's wonderful; a barn with a view is a lovely setting, and June in the Dales should give you long evenings for photos. Keep the contract and deposit receipt somewhere safe, check the cancellation terms on both sides, and put the dates of the later payments into your spreadsheet. Did you pay the deposit by credit card?
U: Yes, on my credit card, for the points. Why?
A: Good, keep doing that for the big deposits. Under Section 75 of the Consumer Credit Act, if you pay for something costing between £100 and £30,000 at least partly on a credit card, the card provider is jointly liable if the supplier goes bust or fails to deliver. Debit cards only have the weaker chargeback scheme. It's free insurance for the parts of a wedding that get paid a year in advance.
U: Good to know. Changing the subject: I need something to read. I'm off to Whitby with Hannah for a weekend at Easter and I want a proper book instead of doomscrolling.
A: Happy to help. What do you usually enjoy: crime, literary fiction, fantasy, something funny? And is there anything you definitely don't want?
U pref_books: I like things that are warm and a bit funny, and crime is fine if it's cosy. But please nothing where a pet dies or everyone's miserable at the end. I read to relax, and I will be properly upset for days.
A: Then The Thursday Murder Club by Richard Osman is a good fit: four pensioners in a retirement village solving murders, genuinely funny and warm, with a satisfying rather than bleak ending, and there are sequels if you like it. I'd hold off on A Man Called Ove, which people often suggest in the same breath; it's lovely but has sad stretches that don't match what you're after.
U: Thursday Murder Club it is. Work update: I've applied for three QA lead jobs. One at a big bank in Leeds, one at a games studio in Sheffield, and one at a fintech down at Leeds Dock called Pellucid that makes invoicing software for small businesses.
A: That's a good spread. The bank will likely be process-heavy with formal test management; the games studio will value exploratory testing and may have crunch; a small fintech will probably want someone who can build a QA approach from scratch. Tailor your examples for each: mention the guides you wrote for new starters and any time you pushed to test earlier in the cycle, because that shows leadership without the title.
U: Pellucid is the one I'm most excited about. Their Glassdoor reviews are decent and they're running a four-day week trial.
A: A four-day week is a big perk, and small fintechs often give a QA lead real influence over how the whole team works. If you get an interview, ask how many testers there are now, the developer-to-tester ratio, how often they release, and what's currently automated. Those answers tell you whether you'd be leading a function or fighting to create one.
U: Quick cooking question too: I've got a whole butternut squash going soft. Ideas that aren't soup?
A: Roast it in wedges with chilli flakes and sage, then toss with cooked orzo, spinach, toasted pumpkin seeds and crumbled goat's cheese. Or make a squash and sage risotto, or squash and black bean tacos with lime and quick-pickled red onion. All three are vegetarian and coconut-free, and the tacos are fastest.
U: Tacos. Tiago gets very excited about anything you eat with your hands.
A: Then tacos it is. Warm the tortillas in a dry pan and put out bowls of toppings so everyone builds their own; it's an easy, sociable midweek dinner.
"""),
        ("8:30 pm on 13 April, 2024", """
U job2: I got it!! Pellucid offered me the QA lead role this afternoon and I accepted on the phone before they'd even finished reading out the benefits. £47,500, up from £34,000, and I start on 20 May.
A: Congratulations, that's a brilliant result: a £13,500 rise and a step up in title on your first round of applications. With a 20 May start, check your notice period at Airedale (a month is typical, so you'll want to resign this week), and get the contract in writing from Pellucid before you hand your notice in.
U: Contract's already in my inbox and I'm resigning on Monday. I'm terrified though. I'll have three testers reporting to me and I've never managed anyone.
A: That fear is normal and slightly useful, because it means you'll take it seriously. In the first month the most important thing is listening: have a one-to-one with each tester in week one, ask what works, what's painful and what they'd change if they were you, and resist changing processes until you understand why they exist. Then set up a regular fortnightly one-to-one and keep it even when things are busy.
U: Is there a book you'd recommend for this? Something practical about running a testing team, not a management book about eagles and cheese.
A a_book: Go for Agile Testing by Lisa Crispin and Janet Gregory. It's practical and written by testers: it covers how testers fit into agile teams, the testing quadrants for thinking about what kinds of testing you need, and how to work alongside developers rather than after them. If you want something on the people side later, The Manager's Path by Camille Fournier is aimed at engineers and refreshingly free of eagles.
U grade2: Ordered. Also, climbing update: I did my first V3 last night! The purple one on the slab wall that I'd been failing on for a fortnight.
A: That's a big jump in two months. Slabs are all about trusting your feet, so the Scarpas are earning their keep. From V3 upwards, technique and reading the problem matter more and more; watch others try a problem before you jump on it and plan the sequence from the ground.
U: I'm properly obsessed. V3 is apparently the grade where the gym's Tuesday social group starts inviting you on outdoor trips, so Hannah and I are plotting.
A: Outdoor bouldering is a lovely next step, and Yorkshire has some of the best gritstone in the country. Before a first trip you'll want a crash pad (or to borrow one), a brush for the holds, and ideally someone experienced who knows the venue. Grit is rough and friction-dependent, so cool, dry days in spring and autumn are best; summer can be greasy.
U: Less fun news: our landlord on Otley Road has told us he's selling and we have to be out by the end of June.
A: That's stressful timing with a new job starting too. In England, if you're on a periodic tenancy, a section 21 notice must give you at least two months and be served correctly, so check the paperwork and that your deposit was protected. Practically, start looking now; June is busy in Headingley because of the student moves. Where are you thinking of looking?
U: We've decided we're done with Headingley: students singing at 3 am and bins that never get emptied. We're thinking Chapel Allerton, Meanwood or maybe Roundhay.
A: All three are popular with people who've graduated from Headingley. Chapel Allerton has a strong village feel with cafés and bars and good buses into town; Meanwood is a bit cheaper, with the valley trail on the doorstep; Roundhay is leafier and near the park but further out. For your commute to Leeds Dock, Chapel Allerton and Meanwood are both roughly 20 to 30 minutes by bus to the centre.
U: Something with outdoor space would be nice. We keep talking about getting a cat once we're settled.
A: Then look for a ground-floor flat with a garden or yard, and ask about pets before you view; plenty of Leeds listings say 'pets considered', but get permission written into the tenancy and expect a slightly higher rent or deposit. A garden also makes things easier if you decide to let a cat outdoors.
U: Tiago's demanding a celebration dinner for the job. What's something special I can make that he'll love and I can eat too?
A: How about a chestnut and spinach Wellington with a red wine and shallot gravy? It's a proper celebration centrepiece, fully vegetarian, and meat-eaters rarely miss the beef. Serve it with crisp roast potatoes and buttered greens. If he needs something meatier, pan-fry him a small steak on the side and let the Wellington be the star.
"""),
        ("7:20 pm on 11 May, 2024", """
U: Last week at Airedale done. They had a leaving do at the Brewery Tap and my manager made a speech about the time I found a bug that would have paid out a claim for a stolen hovercraft.
A: That's a brilliant thing to be remembered for. Congratulations on finishing on a high. Do you get any gap before Pellucid on the 20th?
U: A week off. I'm spending it flat hunting and climbing. We've got two viewings on Saturday: a ground-floor flat off Stainbeck Lane in Chapel Allerton with a small garden, and a terraced house in Meanwood that's cheaper but has no parking.
A: Both could work. At viewings, look for damp (especially in ground-floor Victorian flats: check ceiling corners and behind furniture), test the water pressure, ask about the energy rating and typical bills, check your phone signal, and ask directly whether a cat would be allowed. If there's a garden, ask who maintains it.
U: I need advice on Portuguese. I'm 90 days into Duolingo and can read simple sentences, but when Tiago's mum phoned last week I understood literally nothing. She talks like a machine gun.
A: That's very common, for two reasons: the app trains reading and recognition more than listening, and it teaches Brazilian Portuguese while she speaks fast northern European Portuguese. The next step is structured speaking and listening with a real person. A weekly class, or a tutor on iTalki who specialises in European Portuguese, would move you on much faster than more app time, and you could keep the app as a top-up.
U pt2: You've convinced me. I've signed up for a ten-week beginners' European Portuguese evening class at the Leeds Language Exchange, Thursdays 6:30 to 8:30, starting 6 June. I'm letting the owl go.
A: Great decision. Thursday evenings are a good slot, away from the start of your working week. To get the most from it, spend ten minutes after each class writing out the new phrases, and ask Tiago to speak only Portuguese to you during one meal a week, which is a nice low-pressure habit.
U: His parents are coming over for ten days in July to meet my family properly. I want to cook them something Portuguese for the first dinner, but everything his mum makes has pork in it.
A a_feijoada: Make a vegetarian feijoada. Fry onion, garlic and a chopped red pepper in olive oil, then add two teaspoons of smoked paprika, a bay leaf and a little cumin. Tip in two tins of black beans with their liquid, some diced sweet potato and a splash of vegetable stock, and simmer for thirty minutes until thick. Finish with a spoonful of red wine vinegar for sharpness. Serve it with white rice, garlicky sautéed greens (couve) and orange slices. The smoked paprika gives you the smoky depth that chouriço normally brings.
U: I love that. Would his mum be offended if there's no meat in it? She's quite traditional.
A: She might be surprised, but most parents are touched that you've cooked something from their culture. Frame it as 'my vegetarian version of your feijoada' and ask her to teach you her own during the visit, which turns it into a compliment. Tiago can also warn her in advance so it isn't a shock.
U: Good idea. And dessert? Pastéis de nata feel like the obvious answer but I don't trust my pastry skills.
A: Shop-bought all-butter puff pastry works well for home pastéis de nata. Roll it into a tight log, slice into twelve discs, press them into a muffin tin, fill with a custard of egg yolks, sugar, milk, a little flour, lemon zest and cinnamon, and bake at your oven's highest setting for 15 to 18 minutes until blistered on top. Check any ready-made pastry for coconut oil, since some cheaper vegan ones use it.
U: Will check. Climbing question: I've started getting a dull ache in my elbows after sessions. Normal?
A: It's common in people who've ramped up quickly, usually overuse of the forearm tendons where they attach at the elbow. Cut back to two or three sessions a week, warm up properly on easy climbs, avoid lots of steep pulling on back-to-back days, and add some reverse wrist curls with a light weight. If it gets sharper or lasts more than a couple of weeks, see a physio.
U: Tiago says the same, and he's a nurse, so I suppose I should listen.
A: Two votes to one. Rest a bit now and you'll be climbing for longer.
"""),
        ("6:05 pm on 8 June, 2024", """
U home2: We're in! Moved into the ground-floor flat off Stainbeck Lane in Chapel Allerton last Saturday. It's in a big old Victorian house split into four, with high ceilings, a bay window and a little walled garden out the back.
A: Congratulations, that sounds lovely! High ceilings and a bay window are the best bits of those old villas. How did the move go, and how's the first week been?
U rent: Move was hellish but done. It's £1,175 pcm, so £125 more than Otley Road, but the landlord put in writing that a cat is fine, and it's so quiet at night I can hear myself think.
A: That's a good trade for the extra £125. Now you're in: photograph every room against the inventory, take meter readings, register for council tax, and check your deposit was protected within 30 days. High-ceilinged Victorian rooms can be cold in winter, so a thick curtain for the bay is worth budgeting for.
U: First two and a half weeks at Pellucid done too. It's a good place. The developers actually want testers involved early, which I spent seven years begging for.
A: That's a great sign. How's the team?
U boss: Three testers: Jordan, Mei and Callum. My boss, Femi, is Head of Engineering and used to be a tester himself, which is a breath of fresh air. He's asked me to come up with a QA strategy by the end of July.
A: Reporting to someone who's been in your shoes is a big advantage. For the strategy, a simple structure works: the current state (what's tested, how, by whom, what's automated, where bugs escape), the risks (which parts of the product would hurt customers most if broken; for an invoicing app that's payments, tax calculations and invoice numbering), and a three-to-six-month plan with a few measurable goals. Keep it short: two pages beat twenty.
U: That's a helpful frame. The first thing I've noticed is that nobody tests on anything but Chrome on a MacBook, and half our customers are on Android phones.
A: That's a classic gap and a strong early win. Pull the analytics for the top devices and browsers and pick a small device matrix that covers most of your users. A cloud device service like BrowserStack or LambdaTest saves buying a drawer full of phones, and showing it against real customer usage makes it an easy case for Femi to approve.
U crag1: And the big one: last Sunday I went climbing OUTSIDE! The Tuesday group took me and Hannah to Almscliff Crag. I got absolutely shut down on everything harder than V1, the grit ate my fingertips, and I've never been happier.
A: Congratulations on your first outdoor day, and at one of the most famous crags in Yorkshire. Almscliff is notorious for stiff grades, so V1 there can feel harder than V3 indoors; everybody gets humbled on their first visit. Put some climbing balm on your fingertips tonight and keep your nails short.
U: Everyone kept using the word 'sandbagged'. I gather that means the grades are lies.
A: Pretty much. A sandbagged problem is harder than its grade, often because it was graded decades ago by very strong people in terrible boots, and Almscliff is famous for it. Other venues, like Caley or Ilkley, tend to feel friendlier for a second trip.
U: I need a crash pad if I'm going to do this properly. What should I look for?
A: For a first pad, a medium one around 100 by 120 cm, with a taco or hinge fold and shoulder straps comfortable enough for a twenty-minute walk-in, is the sweet spot. Moon, Black Diamond and Ocun all make solid ones in the £150 to £220 range. Second-hand is fine, but avoid pads whose foam feels flat when you sit on them.
U: Chapel Allerton has also ruined my cooking motivation. There's a Saturday market and a bakery that does a cardamom bun I'd walk over hot coals for.
A: That's the danger of living somewhere with good food. At least you'll burn some of it off on the crag.
"""),
        ("9:10 pm on 6 July, 2024", """
U cat_adopt: We did it. We adopted a cat on Saturday from Bramley Cat Rescue. She's a three-year-old tortoiseshell who was handed in when her owner went into a care home, and she's absolutely gorgeous.
A: Congratulations! Tortoiseshells are famous for big personalities ('tortitude'), and three is a lovely age: past the chaotic kitten stage but still playful. How's she settling in?
U cat_name: The rescue had her down as Duchess, which is far too posh for her, so Tiago renamed her Nata, after the custard tarts. She's exactly the colour of a slightly burnt one.
A: That's a perfect name, and burnt custard is very accurate for a tortie. She'll learn it quickly if you say it just before good things like food and treats.
U: Problem is she's spent three days wedged behind the washing machine and only comes out at 3 am to eat. I'm worried she hates us.
A a_cat: She doesn't hate you; hiding is completely normal for a rescue in the first days, especially one whose life has just been turned upside down. Keep her to one quiet room for the first week or two with her litter tray, food, water, a scratching post and a cardboard box or covered bed to hide in, well away from the washing machine. Plug a Feliway Classic diffuser into that room; it releases a calming pheromone that helps many cats settle. Sit in there reading or on your phone without trying to touch her, let her come to you, and use a wand toy to build her confidence. Most rescues start exploring within one to three weeks.
U: We'll set up the spare room for her tonight. What should she be eating? The rescue gave us a bag of dry biscuits.
A: Keep her on the same food for the first week so her stomach isn't upset on top of the stress, then gradually mix in a good-quality wet food over seven to ten days. Many vets suggest a mix of wet and dry for adult cats, since wet food helps with hydration. Keep fresh water away from her food bowl; some cats prefer a water fountain.
U: My in-laws are here too, which makes everything a bit chaotic. Avó Rosa didn't come this time, she's saving herself for the wedding.
A: Ten days of guests and a new cat is a lot at once. Make the spare room a no-visitors zone for Nata until she's more confident. How's the visit going?
U: Mostly lovely. The feijoada went down well! His mum had seconds and then told me, very kindly, that it would be better with chouriço.
A: That's a warm success, and the chouriço comment is practically a blessing from a Portuguese mother. Did she offer to show you her own version?
U: She did, and I managed a whole conversation with her in Portuguese about the recipe. Slow and with a lot of pointing, but she understood me and I mostly understood her. The class is paying off already.
A: That's a huge step from not catching a word on the phone in May. Jot down the words you needed and didn't have during the visit; those are the most useful ones to learn next.
U: Climbing's on hold this week because of the visitors. I've been using the fingerboard in the hallway instead; Tiago put it up above the door frame.
A: Be careful with fingerboarding at your stage: most coaches suggest waiting until you've been climbing for at least a year, because finger tendons and pulleys adapt slowly. If you do use it, stick to large edges, hang with straight arms for short sets, never to failure, and never on cold fingers.
U: Oops, noted. I'll stick to the big edges and stop doing one-armed hangs to show off.
A: A wise retreat. Save the showing off for the crag.
U: Tiago says the cat is already his favourite family member.
A: Tell his mother that at your peril.
"""),
        ("7:45 pm on 3 August, 2024", """
U venue_lost: Disaster. Whitcliffe Barn has gone into administration. We got an email on Monday saying all bookings are cancelled, and our deposit is stuck with the administrators.
A: I'm so sorry; that's a horrible email to get. The good news is that you paid on a credit card, so you can make a Section 75 claim to the card provider for the £1,500: explain that the supplier went bust and can't provide the service, and attach the contract, the receipt and the administrators' email. You don't need to wait for the administration to finish. The bigger job is finding a new venue for next June, which is still very possible.
U: I phoned the card company yesterday and they've started the claim. Fingers crossed. We panic-viewed four venues on Saturday.
A: That's a quick response. How did the viewings go? Did anything feel right?
U venue2: We've rebooked at The Tannery, an old leather warehouse in Holbeck that's been turned into an events space: exposed brick, huge windows, fairy lights everywhere. They didn't have 14 June, so the new date is Saturday 21 June 2025. We paid the deposit on the credit card again, obviously.
A: Congratulations on rescuing it so quickly. A converted warehouse suits you two, and Holbeck is a short walk from Leeds station, which is easier for the guests flying in from Portugal than a barn outside Otley would have been. Tell everyone about the date change as soon as possible, particularly anyone who has already booked flights.
U: His cousins had already booked flights to Manchester for the 14th. The family WhatsApp group has been chaos.
A: Some airlines allow date changes for a fee, which may be cheaper than new flights, so it's worth them checking. If it's only a few people, you could offer to cover the change fees from the contingency line in your budget. Put the new date on a wedding website and send one clear message to everyone rather than relying on word of mouth.
U save2: On the plus side, with my pay rise we've put the wedding pot up from £400 to £650 a month, so we can absorb the difference, since The Tannery is a bit more expensive.
A: That's a smart use of the extra income. At £650 a month from now until next June you'll add roughly £7,000, so even with a slightly pricier venue you should stay close to the overall budget. Keep the contingency separate so it doesn't quietly get spent on flowers.
U injury: Also, my ring finger has been sore since last Thursday. The physio at the gym reckons it's a mild A2 pulley strain from crimping too hard on a tiny edge.
A: Sorry to hear that. It's one of the most common injuries on the wall, and mild ones heal well if you respect them. The usual approach is a few days of relative rest, then gentle range-of-motion work and gradual loading with open-hand grips on big holds, avoiding full crimps until it's pain-free. Many physios suggest H-taping the finger when you go back. Expect two to six weeks for a mild strain, and follow your physio's plan over any internet advice, mine included.
U: She said three weeks off anything crimpy. Was it the fingerboard? Be honest.
A: It may well have contributed. Finger tendons and pulleys adapt much more slowly than muscles, which is why fingerboards are usually left for a year or so, although pulley strains also happen on single hard moves on small holds. When you're back, build up gradually and save the board for later.
U: Fine, fine. Meanwhile Nata has come out of the spare room and now sleeps on my laptop keyboard during meetings.
A: That's excellent progress for a cat who lived behind the washing machine a month ago. The keyboard is warm and smells of you, so it's a compliment. A heated pad or a folded blanket on the desk beside the laptop sometimes tempts them off it.
U: Tiago and I also went to a friend's wedding last weekend at a hotel in Harrogate. Mostly it made us glad we're not doing a sit-down five-course dinner.
A: Friends' weddings are great research. What did you notice you'd like to do differently?
U: Shorter speeches, more dancing, and food people can actually eat. Half the menu had coconut in it, so I had bread rolls and a dessert I couldn't identify.
A: Then make dietary requirements part of the caterer's brief from day one: ask for a full allergen list for every dish, separate preparation, and labels on anything served as a buffet or sharing platter. Since you're vegetarian too, insist on tasting the vegetarian main at the menu tasting; it's often the least loved dish on the menu.
"""),
        ("8:00 pm on 31 August, 2024", """
U: Back from a week in Braga! I'm knackered and three pounds heavier from his mum's cooking, and Nata has barely forgiven us for leaving her with the cat sitter.
A: Welcome back! How was it, and how did the Portuguese hold up in the wild?
U: Better than I expected. Avó Rosa held my hand through a whole lunch and talked at me for an hour. I understood maybe a third, but I could answer, and she kept telling everyone my Portuguese is 'quase perfeito', which is a lie, but a sweet one.
A: That's a lovely moment, and following a third of a fast conversation with an 88-year-old from the Minho is a real achievement after eight months. Will you carry on once the current course ends?
U pt3: The ten weeks finished before we flew out, so I've signed up for the next level, the improvers' evening class at the Language Exchange, same Thursday slot, starting in September.
A: Good. At improver level, focus on the past tenses (the preterite and the imperfect), which is where most conversation about family and memories lives. A European Portuguese podcast on your commute will keep your ear tuned between classes.
U: Food was a challenge though. Every dish seemed to have pork or fish in it, and the café near his parents' house put cocada, which is basically a coconut sweet, next to everything.
A: That sounds tricky. Did you manage to find things to eat?
U: His mum made me a special caldo verde without the sausage, and the bakery did pão de ló, a sponge that's basically eggs, sugar and flour, so I lived on that, cheese and bread.
A: That's very kind of her, and a sign you've been properly adopted by the family. Pão de ló is worth remembering as a coconut-free dessert if you want a Portuguese touch at the wedding.
U crag2: Also, before we flew out I did my second outdoor trip: Caley Crags near Otley, with Hannah. Much friendlier than Almscliff. I did three V2s and the finger held up fine with tape.
A: Good news on both counts: Caley is a lovely wooded venue, and V2s on grit with a recovering finger is a very good sign. Keep the tape on for a few more weeks and build up gradually.
U: Nata update: she's started scratching the sofa. The landlord's sofa. It's beige fabric and she's picked the corner by the bay window.
A: Annoying but very fixable. Cats scratch to stretch, keep their claws in shape and mark territory, often in prominent spots. Put a tall, sturdy sisal post right next to that corner, tall enough for her to stretch fully since many posts are too short, and rub catnip or dried silvervine on it. Cover the sofa corner with double-sided tape or a throw for a few weeks so the post becomes the better option, and praise her when she uses it.
U: She's also started bringing me her toy mouse at 5 am and yelling.
A: She's telling you she has energy to burn. A ten-to-fifteen-minute play session with a wand toy just before bed, followed by a small meal, mimics hunting, eating and sleeping, and often stops the early wake-up calls. Don't get up and feed her when she yells, or she'll learn that yelling works.
U: Work's good too: Femi approved my QA strategy and we've started a proper device lab with BrowserStack.
A: Congratulations; getting a strategy approved in your first three months is a strong start. Start tracking a couple of measurable things now, like customer-reported bugs per release or the share of regression tests automated, so you can show the impact at your six-month review.
"""),
        ("6:30 pm on 28 September, 2024", """
U grade3: Guess who got her first V4 last night? The blue arête in the cave at Boulder Yard. Eight sessions of falling off the last move and then it just went.
A: Congratulations! A first V4 eight months in is great progress, especially with a finger injury in the middle. Arêtes are all about body position, so it shows your technique has come on a lot.
U: The finger's fully better, and I'm being sensible, no fingerboard. Hannah wants to do a weekend in the Peak District in October, at Stanage.
A: Stanage is a classic: a long gritstone edge with masses of bouldering at every grade around the Plantation. October is often prime grit season, with cool temperatures and good friction. Book somewhere in Hathersage early and pack layers; it's exposed and gets cold fast.
U: Wedding check-in: we've done a menu tasting at The Tannery. The caterer was brilliant about the coconut thing, and the veggie main is a wild mushroom risotto that Tiago prefers to the beef.
A: That's a good sign, and taking the allergy seriously is the most important part. Get the allergy requirements written into the final catering contract, and ask for ingredient lists for the canapés and desserts too, since coconut often hides in desserts, vegan options and cocktails.
U: The Section 75 claim came through as well! We got the full £1,500 back from the card company, and it's gone straight into the wedding pot.
A: Brilliant news; that's exactly the situation it exists for. With the refund, the bigger monthly transfers and his parents' contribution, you should be comfortable. It's worth updating the spreadsheet to see how much contingency you now have.
U: Speaking of money, I'm doing a review of the household budget. With the new rent, the cat, the climbing membership and the wedding pot, I somehow have less spare cash than when I was on the lower salary.
A: That's very common after a pay rise: a bit of lifestyle creep plus some genuinely new commitments. List the fixed costs (rent, bills, wedding pot, the climbing membership at around £45 a month, cat insurance and food), then go through the last three months of bank statements for subscriptions and takeaways. A rough target is fixed costs under 50% of take-home, 20% saved and 30% for everything else. A couple of forgotten subscriptions often pay for the cat.
U: Nata has her booster jabs next week at the vet on Harrogate Road. She's insured now, £14 a month, after I found out what a single vet visit costs.
A: Sensible; £14 a month for a three-year-old is reasonable. Check the policy is 'lifetime' cover rather than 'per condition' or time-limited, because that matters if she develops a long-term condition. At the booster, ask the vet to check her teeth and weight too.
U: I also finished The Thursday Murder Club and the two sequels. You were right about it. Can you recommend something with a similar cosy feel for the winter?
A: Glad it hit the spot. You might enjoy The House in the Cerulean Sea by TJ Klune: warm, funny, found-family fantasy with a very satisfying ending. For cosy crime, try Murder Before Evensong by Richard Coles, about a village vicar who ends up investigating a murder. Neither will leave you miserable.
U: Last thing for tonight: Tiago's cousin is visiting next month, he's vegan, and I'm hosting. Any ideas for a Sunday lunch?
A: A lentil and walnut roast with onion gravy is a crowd-pleaser, with roast potatoes done in olive oil, maple-roasted carrots and parsnips, and greens with lemon. Use olive oil instead of butter throughout and check the stock cube in the gravy is vegan, and the whole table can eat the same lunch, with no coconut anywhere.
U: Perfect. Obrigada! See, the class is working.
A: De nada! Give Nata a chin scratch from me.
"""),
    ],
    "questions": [
        ("What's my cat called?", "Nata (the rescue had named her Duchess)", "cat_name", 11),
        ("Who am I marrying?", "Tiago", "fiance", 11),
        ("Which town are my future in-laws in?", "Braga, in the north of Portugal", "inlaws", 11),
        ("What new sport did I take up this year?", "bouldering (indoor climbing at Boulder Yard in Kirkstall)", "sport", 11),
        ("What did I hurt while climbing?", "my ring finger: a mild A2 pulley strain", "injury", 11),
        ("Who is my manager at the new company?", "Femi, the Head of Engineering", "boss", 11),
        ("How much do we pay each month to live in Chapel Allerton?", "£1,175 a month", "rent", 11),
        ("Where do I live?", "a ground-floor flat off Stainbeck Lane in Chapel Allerton, Leeds", "home2", 12),
        ("What do I do for work now?", "QA lead at Pellucid, a fintech at Leeds Dock", "job2", 12),
        ("Where is our wedding being held?", "The Tannery, a converted warehouse in Holbeck (Saturday 21 June 2025)", "venue2", 12),
        ("How am I learning Portuguese these days?", "an improvers' evening class on Thursdays at the Leeds Language Exchange", "pt3", 12),
        ("What's the hardest grade I can boulder now?", "V4", "grade3", 12),
        ("I'm making a Thai green curry this weekend; what do you need to leave out of any recipe you give me?",
         "coconut (coconut milk or cream): I'm allergic", "pref_coconut", 13),
        ("Can you suggest a lasagne for tonight? What mustn't go in it?", "meat or fish: I'm vegetarian", "pref_veg", 13),
        ("I need some trainers for walking in to the crags; what should you keep in mind when picking a pair for me?",
         "wide fit: I have broad feet", "pref_feet", 13),
        ("What sort of novel should you avoid when picking one for me?",
         "anything with a sad or bleak ending, or where a pet dies", "pref_books", 13),
        ("Which climbing shoes did you suggest for me?", "the Scarpa Origin", "a_shoes", 14),
        ("What book did you recommend for leading my testing team?", "Agile Testing by Lisa Crispin and Janet Gregory",
         "a_book", 14),
        ("What dish did you suggest I cook for Tiago's parents?",
         "a vegetarian feijoada (black beans, smoked paprika, sweet potato)", "a_feijoada", 14),
        ("What did you advise to help the cat settle in when she was hiding?",
         "keep her in one quiet room with a hiding box, litter, food and water, plug in a Feliway Classic diffuser, "
         "and let her come to you", "a_cat", 14),
        ("Where did I live before Chapel Allerton?", "a two-bed flat above a launderette on Otley Road, Headingley",
         "home1", 15),
        ("Which venue did we book first for the wedding?", "Whitcliffe Barn near Otley (for 14 June 2025)", "venue1", 15),
        ("How did I first start learning Portuguese?", "with the Duolingo app on the bus", "pt1", 15),
        ("What jobs have I had this year, in order?", "manual tester at Airedale Insurance, then QA lead at Pellucid",
         "job1 job2", 16),
        ("Which outdoor crags have I climbed at so far?", "Almscliff Crag and Caley Crags", "crag1 crag2", 16),
    ],
}
