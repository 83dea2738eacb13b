// Joint errors read through the public API only (poses, frames, coordinates), so that what a test or a
// benchmark reports checks the core instead of repeating its own bookkeeping.
#ifndef SINEW_SCENES_MEASURE_H
#define SINEW_SCENES_MEASURE_H

#include "scenes/common.h"

#ifdef __cplusplus
extern "C" {
#endif

// The largest distance between a joint's two anchors (world points of its frames), m, over `count` joints.
double scene_joints_max_anchor_gap(const sn_world* world, const sn_joint_id* joints, int count);
// The largest angle between the x axes (the hinge axes) of a joint's two frames, rad.
double scene_joints_max_axis_error(const sn_world* world, const sn_joint_id* joints, int count);

// The axes a joint type locks in the configuration of scene_joint (joints.h): a bit per sn_axis. The
// six-axis joint there locks X, Y, Z and RX; the distance joint locks no axis (its length is its row).
unsigned scene_locked_axes(sn_joint_type type);
// A joint's error on what its type must hold, from sn_joint_get_coordinate: the largest locked linear
// coordinate (m; for a distance joint |length - rest|) and the largest locked angular one (rad).
typedef struct scene_joint_error
{
	double linear;  // m
	double angular; // rad
} scene_joint_error;
scene_joint_error scene_joint_locked_error(const sn_world* world, sn_joint_id joint, sn_joint_type type,
										   double distance_rest_length);

#ifdef __cplusplus
}
#endif

#endif
