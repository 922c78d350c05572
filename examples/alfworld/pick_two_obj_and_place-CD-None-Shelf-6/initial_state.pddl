(define (problem plan_pick_two_obj_and_pla6)
(:domain alfred)
(:objects
agent1 - agent
CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
CD_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 - object
Pencil_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
KeyChain_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - object
Desk_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
SideTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Bed_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Drawer_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
Drawer_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 - receptacle
Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 - receptacle
CDType - otype
KeyChainType - otype
PencilType - otype
BedType - rtype
DeskType - rtype
DrawerType - rtype
ShelfType - rtype
SideTableType - rtype
loc_bar_0_bar_0_bar_0_bar_0 - location
loc_bar_1_bar_1_bar_1_bar_30 - location
loc_bar_2_bar_1_bar_1_bar_30 - location
loc_bar_3_bar_1_bar_1_bar_30 - location
loc_bar_4_bar_1_bar_1_bar_30 - location
loc_bar_5_bar_2_bar_1_bar_30 - location
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
(receptacleType Drawer_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 DrawerType)
(receptacleAtLocation Drawer_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 loc_bar_5_bar_2_bar_1_bar_30)
(openable Drawer_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50)
(receptacleType Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 ShelfType)
(receptacleAtLocation Shelf_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_6_bar_1_bar_1_bar_30)
(canContain BedType CDType)
(canContain BedType KeyChainType)
(canContain BedType PencilType)
(canContain DeskType CDType)
(canContain DeskType KeyChainType)
(canContain DeskType PencilType)
(canContain DrawerType CDType)
(canContain DrawerType KeyChainType)
(canContain DrawerType PencilType)
(canContain ShelfType CDType)
(canContain ShelfType KeyChainType)
(canContain ShelfType PencilType)
(canContain SideTableType CDType)
(canContain SideTableType KeyChainType)
(canContain SideTableType PencilType)
(objectType CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 CDType)
(inReceptacle CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Drawer_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_4_bar_1_bar_1_bar_30)
(pickupable CD_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType CD_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 CDType)
(inReceptacle CD_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 Desk_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation CD_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50 loc_bar_1_bar_1_bar_1_bar_30)
(pickupable CD_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50)
(objectType Pencil_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 PencilType)
(inReceptacle Pencil_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 Drawer_bar__plus_02_dot_00_bar__plus_00_dot_90_bar__minus_02_dot_50)
(objectAtLocation Pencil_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_5_bar_2_bar_1_bar_30)
(pickupable Pencil_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectType KeyChain_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 KeyChainType)
(inReceptacle KeyChain_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 SideTable_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
(objectAtLocation KeyChain_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50 loc_bar_2_bar_1_bar_1_bar_30)
(pickupable KeyChain_bar__plus_01_dot_00_bar__plus_00_dot_90_bar__minus_01_dot_50)
)
(:goal
                    (and
                        (exists (?r - receptacle)
                            (exists (?o1 - object)
                                (and
                                    (objectType ?o1 CDType)
                                    (receptacleType ?r ShelfType)
                                    (inReceptacle ?o1 ?r)
                                    (exists (?o2 - object)
                                        (and
                                            (not (= ?o1 ?o2))
                                            (objectType ?o2 CDType)
                                            (receptacleType ?r ShelfType)
                                            (inReceptacle ?o2 ?r)
                                        )
                                    )
                                )
                            )
                        )
                    )
                )
            )
