(define (problem plan_pick_clean_then_plac2)
(:domain alfred)
(:objects
agent1 - agent
Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Plate_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Fridge_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Microwave_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Sink_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50_bar_SinkBasin - receptacle
Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 - receptacle
DiningTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
AppleType - otype
MugType - otype
PlateType - otype
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
(canContain CabinetType MugType)
(canContain CabinetType PlateType)
(canContain CounterTopType AppleType)
(canContain CounterTopType MugType)
(canContain CounterTopType PlateType)
(canContain DiningTableType AppleType)
(canContain DiningTableType MugType)
(canContain DiningTableType PlateType)
(canContain FridgeType AppleType)
(canContain FridgeType MugType)
(canContain FridgeType PlateType)
(canContain MicrowaveType AppleType)
(canContain MicrowaveType MugType)
(canContain MicrowaveType PlateType)
(canContain ShelfType AppleType)
(canContain ShelfType MugType)
(canContain ShelfType PlateType)
(canContain SinkBasinType AppleType)
(canContain SinkBasinType MugType)
(canContain SinkBasinType PlateType)
(objectType Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 MugType)
(inReceptacle Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Cabinet_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50)
(objectAtLocation Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_6_bar_2_bar_1_bar_30)
(pickupable Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Mug_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 AppleType)
(inReceptacle Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 CounterTop_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_1_bar_1_bar_1_bar_30)
(pickupable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(heatable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(coolable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Apple_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Plate_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 PlateType)
(inReceptacle Plate_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Cabinet_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Plate_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_5_bar_1_bar_1_bar_30)
(pickupable Plate_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(cleanable Plate_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
)
(:goal
            (and
                (exists (?r - receptacle)
                    (exists (?o - object)
                        (and
                            (cleanable ?o)
                            (objectType ?o MugType)
                            (receptacleType ?r ShelfType)
                            (isClean ?o)
                            (inReceptacle ?o ?r)
                        )
                    )
                )
            )
        )
    )
