// Controller inputs shared by their commands and by lockstep ticks: drive targets (SetDriveTargets, a
// LockstepInput's targets) and forces (ApplyForces, a LockstepInput's forces).
//
// Each input is checked whole first, which changes nothing, then set, which cannot fail after a check
// of the same world: a rejected input leaves the world exactly as it was, and what must come between
// (a world's own controller handing over the controls before targets are set) happens only for an input
// that will apply. Drive targets go to the core in its all-or-nothing batches (sn_world_*_joint_targets,
// sn_articulation_*_drive_targets); forces accumulate, so the server checks them (live ids, in-range
// links and dofs, finite numbers) before the first is applied.
#ifndef SINEW_SERVER_CONTROL_H
#define SINEW_SERVER_CONTROL_H

#include "sinew.pb.h"

#include "sinew/sinew.h"

#include <stddef.h>
#include <stdint.h>

// Check drive targets (maximal joints and one articulation's dofs). Returns 0 or the error code with a
// detail line; changes nothing.
int32_t control_check_targets(sn_world* world, const sinew_v1_SetDriveTargets* targets, char* detail, size_t capacity);
// Set drive targets that passed control_check_targets on this world. Returns 0 (or, for targets that were
// not checked, the error with nothing changed on the joints or on the articulation that rejected them).
int32_t control_set_targets(sn_world* world, const sinew_v1_SetDriveTargets* targets, char* detail, size_t capacity);

// Check forces on bodies, articulation links and dofs. Returns 0 or the error code with a detail line.
int32_t control_check_forces(const sn_world* world, const sinew_v1_ApplyForces* forces, char* detail, size_t capacity);
// Apply forces that passed control_check_forces on this world (they act in the next step).
void control_apply_forces(sn_world* world, const sinew_v1_ApplyForces* forces);

#endif
