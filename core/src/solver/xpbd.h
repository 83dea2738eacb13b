// The XPBD world solver (Mueller et al. 2020): substeps of position corrections and a velocity pass. The algorithm
// and what each joint def field means in it are at the top of xpbd.c.
#ifndef SINEW_XPBD_H
#define SINEW_XPBD_H

#include "sinew/types.h"

typedef struct sn_world sn_world;
typedef struct xpbd_lambda xpbd_lambda;

typedef struct xpbd_pose
{
	sn_vec3 x; // centre of mass, m
	sn_quat q;
} xpbd_pose;

// Scratch of the XPBD step, grown with the world.
typedef struct xpbd_state
{
	xpbd_pose* predicted; // pose after the substep's integration, before corrections, by solver body slot
	int predicted_capacity;
	xpbd_pose* before; // pose at the substep's start, before integration, by solver body slot (contacts)
	int before_capacity;
	double* start; // per joint: linear (m) and angular (rad) motor coordinate at the substep start
	int start_capacity;
	xpbd_lambda* lambda; // per joint: the multipliers of its blocks in the current substep
	int lambda_capacity;
} xpbd_state;

// Grow the scratch to the world's size (before a step; nothing changes on failure).
sn_error xpbd_reserve(sn_world* world);
void xpbd_release(sn_world* world);
// One world substep of length h: position_iterations XPBD substeps of h / position_iterations.
void xpbd_substep(sn_world* world, double h);

#endif
