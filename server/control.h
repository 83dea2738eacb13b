// Controller inputs shared by their commands and by lockstep ticks: drive targets and forces. Each is
// validated as a whole before anything changes (a rejected input leaves the world exactly as it was).
// With dry_run the input is only validated.
#ifndef SINEW_SERVER_CONTROL_H
#define SINEW_SERVER_CONTROL_H

#include "sinew.pb.h"

#include "sinew/sinew.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int32_t control_set_targets(sn_world* world, const sinew_v1_SetDriveTargets* targets, bool dry_run, char* detail,
							size_t capacity);
int32_t control_apply_forces(sn_world* world, const sinew_v1_ApplyForces* forces, bool dry_run, char* detail,
							 size_t capacity);

#endif
