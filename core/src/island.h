// Islands and sleeping (island.c): bodies and articulations that touch or are jointed form islands; an
// island whose every member has moved slower than the world's sleep thresholds for time_to_sleep sleeps:
// it is left out of the collision stage's narrowphase, the solvers and the articulation solves until
// something wakes it.
#ifndef SINEW_ISLAND_H
#define SINEW_ISLAND_H

#include "sinew/types.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct sn_world sn_world;

// Scratch for the island pass (union-find over bodies and articulations), reserved with the step's other
// scratch before anything changes. False if out of memory.
bool island_reserve(sn_world* world);
void island_release(sn_world* world);

// Wake a body (a link wakes its articulation) or an articulation, and with it every member of the island
// it slept with. Nothing for the world (-1), static bodies or what is awake already.
void island_wake_body(sn_world* world, int32_t body_slot);
void island_wake_artic(sn_world* world, int32_t artic_slot);
// Wake the sleepers that touch a body's shapes (a static body moved, a shape of it changed or went).
void island_wake_touching(sn_world* world, int32_t body_slot);
// Wake everything (a world setting that changes the motion of all, such as gravity).
void island_wake_all(sn_world* world);

// Whether a body slot moves in this step: a dynamic body or a link that is awake (false for the world, static
// and kinematic bodies).
bool island_body_moves(const sn_world* world, int32_t body_slot);
// Whether a body slot is asleep (a link: its articulation).
bool island_body_asleep(const sn_world* world, int32_t body_slot);

// After the collision stage: wake the sleeping islands that an awake body or a moving kinematic body
// began or stopped touching (the stage's contact events).
void island_wake_touched(sn_world* world);
// XPBD and DIRECT worlds (after the collision stage): the islands that hold an articulation - its links
// and every body and joint that contacts (speculative ones included) and joints connect to it - are
// solved whole by the articulations' TGS path; mark their bodies and joints (body.articulated,
// joint.articulated), and clear the marks in other worlds.
void island_mark_articulated(sn_world* world);
// After the solve: sleep timers, the islands of what is awake, and islands that have rested long
// enough fall asleep (their velocities are zeroed).
void island_update(sn_world* world, double dt);

#endif
