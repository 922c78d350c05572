(define (problem plan_pick_and_place_simpl1)
(:domain alfred)
(:objects
agent1 - agent
Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Sink_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50_bar_SinkBasin - receptacle
Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 - receptacle
DiningTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
AppleType - otype
BreadType - otype
MugType - otype
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
(canContain CabinetType AppleType)
(canContain CabinetType BreadType)
(canContain CabinetType MugType)
(canContain CounterTopType AppleType)
(canContain CounterTopType BreadType)
(canContain CounterTopType MugType)
(canContain DiningTableType AppleType)
(canContain DiningTableType BreadType)
(canContain DiningTableType MugType)
(canContain FridgeType AppleType)
(canContain FridgeType BreadType)
(canContain FridgeType MugType)
(canContain MicrowaveType AppleType)
(canContain MicrowaveType BreadType)
(canContain MicrowaveType MugType)
(canContain ShelfType AppleType)
(canContain ShelfType BreadType)
(canContain ShelfType MugType)
(canContain SinkBasinType AppleType)
(canContain SinkBasinType BreadType)
(canContain SinkBasinType MugType)
(objectType Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 AppleType)
(inReceptacle Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_2_bar_1_bar_1_bar_30)
(pickupable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 MugType)
(inReceptacle Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_1_bar_1_bar_1_bar_30)
(pickupable Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 BreadType)
(inReceptacle Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_8_bar_1_bar_1_bar_30)
(pickupable Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Bread_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
)
(:goal
            (and
                (exists (?r - receptacle)
                    (exists (?o - object)
                        (and
                            (inReceptacle ?o ?r)
                            (objectType ?o AppleType)
                            (receptacleType ?r DiningTableType)
                        )
                    )
                )
            )
        )
    )
