(define (problem plan_pick_heat_then_place3)
(:domain alfred)
(:objects
agent1 - agent
Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Sink_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50_bar_SinkBasin - receptacle
Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 - receptacle
DiningTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
EggType - otype
MugType - otype
PotatoType - otype
CabinetType - rtype
CounterTopType - rtype
DiningTableType - rtype
FridgeType - rtype
MicrowaveType - rtype
ShelfType - rtype
SinkBasinType - rtype
loc_bar_0_bar_0_bar_0_bar_0 - location
loc_bar_1_bar_1_bar_1_bar_30 - location
loc_bar_2_bar_1_bar_1_bar_30 - location
loc_bar_3_bar_1_bar_1_bar_30 - location
loc_bar_4_bar_1_bar_1_bar_30 - location
loc_bar_5_bar_1_bar_1_bar_30 - location
loc_bar_6_bar_2_bar_1_bar_30 - location
loc_bar_7_bar_1_bar_1_bar_30 - location
loc_bar_8_bar_1_bar_1_bar_30 - location
)
(:init
(atLocation agent1 loc_bar_0_bar_0_bar_0_bar_0)
(receptacleType CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 CounterTopType)
(receptacleAtLocation CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_1_bar_1_bar_1_bar_30)
(receptacleType Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 FridgeType)
(receptacleAtLocation Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_2_bar_1_bar_1_bar_30)
(openable Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(receptacleType Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 MicrowaveType)
(receptacleAtLocation Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_3_bar_1_bar_1_bar_30)
(openable Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(receptacleType Sink_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50_bar_SinkBasin SinkBasinType)
(receptacleAtLocation Sink_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50_bar_SinkBasin loc_bar_4_bar_1_bar_1_bar_30)
(receptacleType Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 CabinetType)
(receptacleAtLocation Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_5_bar_1_bar_1_bar_30)
(openable Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(receptacleType Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 CabinetType)
(receptacleAtLocation Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 loc_bar_6_bar_2_bar_1_bar_30)
(openable Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50)
(receptacleType DiningTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 DiningTableType)
(receptacleAtLocation DiningTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_7_bar_1_bar_1_bar_30)
(receptacleType Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 ShelfType)
(receptacleAtLocation Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_8_bar_1_bar_1_bar_30)
(canContain CabinetType EggType)
(canContain CabinetType MugType)
(canContain CabinetType PotatoType)
(canContain CounterTopType EggType)
(canContain CounterTopType MugType)
(canContain CounterTopType PotatoType)
(canContain DiningTableType EggType)
(canContain DiningTableType MugType)
(canContain DiningTableType PotatoType)
(canContain FridgeType EggType)
(canContain FridgeType MugType)
(canContain FridgeType PotatoType)
(canContain MicrowaveType EggType)
(canContain MicrowaveType MugType)
(canContain MicrowaveType PotatoType)
(canContain ShelfType EggType)
(canContain ShelfType MugType)
(canContain ShelfType PotatoType)
(canContain SinkBasinType EggType)
(canContain SinkBasinType MugType)
(canContain SinkBasinType PotatoType)
(objectType Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 PotatoType)
(inReceptacle Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 DiningTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_7_bar_1_bar_1_bar_30)
(pickupable Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Potato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 EggType)
(inReceptacle Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_2_bar_1_bar_1_bar_30)
(pickupable Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Egg_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 MugType)
(inReceptacle Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_8_bar_1_bar_1_bar_30)
(pickupable Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
)
(:goal
            (and
                (exists (?r - receptacle)
                    (exists (?o - object)
                        (and
                            (heatable ?o)
                            (objectType ?o PotatoType)
                            (receptacleType ?r CounterTopType)
                            (isHot ?o)
                            (inReceptacle ?o ?r)
                        )
                    )
                )
            )
        )
    )
