// A world's own controller: a program that drives the world from inside its steps (the demo robot's
// motion, demo_world.c) until a client takes the controls.
//
// `drive` runs on whichever thread runs the step, before every sn_world_step, with the world the step
// owns; it may set drive targets and nothing else. A client that sets drive targets (SetDriveTargets, a
// lockstep input) takes the controls: `hold` runs once then, with the world idle, and leaves every target
// it drives where it is, at rest, so the robot stops where it was; `drive` stands by until a reset or a
// restore gives the controls back.
#ifndef SINEW_SERVER_CONTROLLER_H
#define SINEW_SERVER_CONTROLLER_H

#include "sinew/sinew.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct world_controller
{
	void (*drive)(void* context, sn_world* world); // NULL: the world has no controller
	void (*hold)(void* context, sn_world* world);  // may be NULL
	void (*release)(void* context);                // frees context when the world goes; may be NULL
	void* context;
	bool yielded; // a client has the controls
} world_controller;

// Before each step (the stepping thread): drive the world unless a client has the controls.
void controller_step(world_controller* controller, sn_world* world);
// A client is about to set drive targets (world idle): the controller holds and stands by from now on.
void controller_take(world_controller* controller, sn_world* world, uint64_t world_id);
// A reset or a restore: a controller that stood by drives the world again.
void controller_resume(world_controller* controller);
// The world goes: release the context.
void controller_free(world_controller* controller);

#endif
