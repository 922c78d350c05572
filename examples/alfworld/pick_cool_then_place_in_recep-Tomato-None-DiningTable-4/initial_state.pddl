(define (problem plan_pick_cool_then_place4)
(:domain alfred)
(:objects
agent1 - agent
Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Sink_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50_bar_SinkBasin - receptacle
Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 - receptacle
DiningTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
AppleType - otype
LettuceType - otype
TomatoType - otype
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
(canContain CabinetType LettuceType)
(canContain CabinetType TomatoType)
(canContain CounterTopType AppleType)
(canContain CounterTopType LettuceType)
(canContain CounterTopType TomatoType)
(canContain DiningTableType AppleType)
(canContain DiningTableType LettuceType)
(canContain DiningTableType TomatoType)
(canContain FridgeType AppleType)
(canContain FridgeType LettuceType)
(canContain FridgeType TomatoType)
(canContain MicrowaveType AppleType)
(canContain MicrowaveType LettuceType)
(canContain MicrowaveType TomatoType)
(canContain ShelfType AppleType)
(canContain ShelfType LettuceType)
(canContain ShelfType TomatoType)
(canContain SinkBasinType AppleType)
(canContain SinkBasinType LettuceType)
(canContain SinkBasinType TomatoType)
(objectType Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 TomatoType)
(inReceptacle Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_5_bar_1_bar_1_bar_30)
(pickupable Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Tomato_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 LettuceType)
(inReceptacle Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_1_bar_1_bar_1_bar_30)
(pickupable Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Lettuce_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 AppleType)
(inReceptacle Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_3_bar_1_bar_1_bar_30)
(pickupable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
)
(:goal
            (and
                (exists (?r - receptacle)
                    (exists (?o - object)
                        (and
                            (coolable ?o)
                            (objectType ?o TomatoType)
                            (receptacleType ?r DiningTableType)
                            (isCool ?o)
                            (inReceptacle ?o ?r)
                        )
                    )
                )
            )
        )
    )
