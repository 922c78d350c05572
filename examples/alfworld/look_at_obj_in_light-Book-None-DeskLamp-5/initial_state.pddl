(define (problem plan_look_at_obj_in_light5)
(:domain alfred)
(:objects
agent1 - agent
Book_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
DeskLamp_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Pen_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Desk_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
SideTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Bed_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Drawer_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Dresser_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
BookType - otype
CDType - otype
DeskLampType - otype
PenType - otype
BedType - rtype
DeskType - rtype
DrawerType - rtype
DresserType - rtype
ShelfType - rtype
SideTableType - rtype
loc_bar_0_bar_0_bar_0_bar_0 - location
loc_bar_1_bar_1_bar_1_bar_30 - location
loc_bar_2_bar_1_bar_1_bar_30 - location
loc_bar_3_bar_1_bar_1_bar_30 - location
loc_bar_4_bar_1_bar_1_bar_30 - location
loc_bar_5_bar_1_bar_1_bar_30 - location
loc_bar_6_bar_1_bar_1_bar_30 - location
)
(:init
(atLocation agent1 loc_bar_0_bar_0_bar_0_bar_0)
(receptacleType Desk_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 DeskType)
(receptacleAtLocation Desk_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_1_bar_1_bar_1_bar_30)
(receptacleType SideTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 SideTableType)
(receptacleAtLocation SideTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_2_bar_1_bar_1_bar_30)
(receptacleType Bed_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 BedType)
(receptacleAtLocation Bed_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_3_bar_1_bar_1_bar_30)
(receptacleType Drawer_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 DrawerType)
(receptacleAtLocation Drawer_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_4_bar_1_bar_1_bar_30)
(openable Drawer_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(receptacleType Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 ShelfType)
(receptacleAtLocation Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_5_bar_1_bar_1_bar_30)
(receptacleType Dresser_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 DresserType)
(receptacleAtLocation Dresser_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_6_bar_1_bar_1_bar_30)
(canContain BedType BookType)
(canContain BedType CDType)
(canContain BedType PenType)
(canContain DeskType BookType)
(canContain DeskType CDType)
(canContain DeskType PenType)
(canContain DrawerType BookType)
(canContain DrawerType CDType)
(canContain DrawerType PenType)
(canContain DresserType BookType)
(canContain DresserType CDType)
(canContain DresserType PenType)
(canContain ShelfType BookType)
(canContain ShelfType CDType)
(canContain ShelfType PenType)
(canContain SideTableType BookType)
(canContain SideTableType CDType)
(canContain SideTableType PenType)
(objectType Book_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 BookType)
(inReceptacle Book_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Bed_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Book_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_3_bar_1_bar_1_bar_30)
(pickupable Book_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType DeskLamp_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 DeskLampType)
(inReceptacle DeskLamp_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 SideTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation DeskLamp_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_2_bar_1_bar_1_bar_30)
(toggleable DeskLamp_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 CDType)
(inReceptacle CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Drawer_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_4_bar_1_bar_1_bar_30)
(pickupable CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType Pen_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 PenType)
(inReceptacle Pen_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Desk_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation Pen_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_1_bar_1_bar_1_bar_30)
(pickupable Pen_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
)
(:goal
             (and
                 (exists (?ot - object
                          ?r - receptacle
                          ?a - agent
                          ?l - location)
                     (and
                         (objectType ?ot DeskLampType)
                         (toggleable ?ot)
                         (isToggled ?ot)
                         (receptacleAtLocation ?r ?l)
                         (atLocation ?a ?l)
                         (inReceptacle ?ot ?r)
                     )
                 )
                 (exists (?o - object
                          ?a - agent)
                     (and
                         (objectType ?o BookType)
                         (holds ?a ?o)
                     )
                 )
             )
        )
    )
