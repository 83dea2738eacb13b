// The demo world's scene and its controller: the demo arm (models/sinew_arm.urdf) picks a box from a table
// with its gripper, places it elsewhere on the table, and does it again forever. It uses the core and the
// model importer alone (no server, no I/O): sinewd hosts it (demo_world.c) and a test runs it faster than
// real time (tests/server/test_demo_scene.c).
#ifndef SINEW_SERVER_DEMO_SCENE_H
#define SINEW_SERVER_DEMO_SCENE_H

#include "sinew/model.h"
#include "sinew/sinew.h"

#include <stddef.h>

// The arm joints the controller drives (joint1..joint7); the gripper is one more (finger_left_joint, whose
// mimic follower finger_right_joint follows).
#define DEMO_ARM_JOINTS 7

// The stages of one pick-and-place: the box goes from one site of the table to the other.
#define DEMO_STAGES(X)                                                                                                 \
	X(DESCEND, "descend") /* from above the box down to the grasp pose, gripper open */                                \
	X(CLOSE, "close")     /* the fingers close on the box (force-limited) */                                           \
	X(LIFT, "lift")       /* back up, the box held by friction */                                                      \
	X(CARRY, "carry")     /* to above the other site */                                                                \
	X(LOWER, "lower")     /* down until the box nearly touches the table */                                            \
	X(OPEN, "open")       /* the fingers let go */                                                                     \
	X(RETREAT, "retreat") /* back up, gripper open */

typedef enum demo_stage
{
#define DEMO_STAGE_ENUM_(name, text) DEMO_STAGE_##name,
	DEMO_STAGES(DEMO_STAGE_ENUM_)
#undef DEMO_STAGE_ENUM_
		DEMO_STAGE_COUNT
} demo_stage;

// Name of a stage ("approach", ...), or "unknown".
const char* demo_stage_name(demo_stage stage);

// Where the controller is at a time: which pick-and-place (0, 1, ...: even ones carry the box from site 0
// to site 1, odd ones back), which stage, and the time the stage began and ends (s, world time).
typedef struct demo_phase
{
	long cycle;
	demo_stage stage;
	double stage_begin;
	double stage_end;
} demo_phase;

typedef struct demo_scene demo_scene;

// Everything demo_scene_create made: the world (ground, table, box and arm), the model the arm was built
// from and where it went (what DescribeWorld tells), and the controller's context.
typedef struct demo_scene_parts
{
	sn_world* world;
	snm_model* model;
	snm_build_result robot;
	demo_scene* scene; // free() it (world_controller.release)
} demo_scene_parts;

// Build the scene from the demo arm's URDF text (size bytes; file_name for messages): a world of the
// defaults, a ground plane, the table, the box at site 0 and the arm holding its start
// pose (above site 1, gripper open), its joint targets for the pick and place poses solved. Returns
// SN_ERR_OK, or an error with a one-line detail (and nothing left allocated).
sn_error demo_scene_create(const char* urdf, size_t size, const char* file_name, demo_scene_parts* out, char* detail,
						   size_t detail_capacity);
// Free what demo_scene_create made (the world too, unless it was handed over and set to NULL).
void demo_scene_parts_free(demo_scene_parts* parts);

// world_controller.drive: set the drive targets for the end of the step about to be taken (world time plus
// one time step). A function of world time alone, so resets, restores and snapshots carry the motion.
void demo_scene_drive(void* scene, sn_world* world);
// world_controller.hold: a client took the controls. The arm's joints stop where they are; the gripper
// keeps its target, so a box in its fingers stays there.
void demo_scene_hold(void* scene, sn_world* world);

// The schedule.
demo_phase demo_scene_phase_at(double time);
// Seconds of one pick-and-place.
double demo_scene_cycle_seconds(void);
// The box.
sn_body_id demo_scene_box(const demo_scene* scene);
// Where the box rests at a site (0 or 1): its centre, m, world.
sn_vec3 demo_scene_site(const demo_scene* scene, int site);
// Half the box's edge, m.
double demo_scene_box_half(void);
// The tool frame (between the fingertips, z along the fingers) now, world.
sn_transform demo_scene_tool_pose(const demo_scene* scene, const sn_world* world);
// The articulation of the arm.
sn_articulation_id demo_scene_arm(const demo_scene* scene);

#endif
