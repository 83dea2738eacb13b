// The demo world, stepping in real time so that a person who starts sinewd and opens the dashboard sees a
// robot at work:
//   - by default, the demo arm (models/sinew_arm.urdf, embedded in sinewd at build time) on a ground plane
//     picks a box from a table and places it at the table's other side, forever (demo_scene.c: the scene,
//     its waypoints and its controller, which a test also runs without the server);
//   - with --demo-model URDF, that robot alone, moved by its drives through a slow motion that never ends
//     (below): nothing is known of its gripper or its reach, so it picks nothing.
//
// The generic motion is made from the URDF alone, so any robot works: every joint with one coordinate that is not
// a mimic follower gets an acceleration drive (stiffness 2500 1/s^2, damping 100 1/s: critically damped
// at 50 rad/s; maximum force the URDF effort) and a target. The gains are high because an acceleration
// drive scales by the dof's own response, in which the joints further out are free: at 100 1/s^2 the
// demo arm's shoulder lagged its target by 0.5 rad and its roll joints were thrown about by the others;
// at 2500 1/s^2 every joint stays within 0.15 rad of its target (measured over 120 s of the demo arm's
// motion at the default 1 ms; the implicit drives stay stable, and the fingers' mimic error stays at
// 7e-18 m).
//   revolute, continuous: centre + amplitude sin(2 pi t / T_i + phi_i), the centre of its limits (0 for a
//                         continuous joint), amplitude 0.6 of its half range but at most 0.9 rad,
//                         T_i = 9 s + 2.5 s i, phi_i = 1.1 i for the i-th such joint;
//   prismatic:            its whole range as lower + (upper - lower)(1 - cos(2 pi t / 4 s)) / 2: a gripper
//                         opens and closes every 4 s (its mimic follower follows).
// Targets come with their velocities, from the world's time at the end of the step being taken, set by a
// controller that runs inside the step (world_controller.drive), so the motion is the same whatever the
// pacing, and continues through snapshots and resets. Initial positions are the targets at t = 0.
// A client that sets drive targets takes the controls: the motion stands by, every joint held where it
// was (world_controller.hold), until a Reset or Restore gives the motion back. The pick-and-place does the
// same, but its gripper keeps squeezing what it holds.
#include "demo_world.h"

#include "demo_scene.h"

#include "log.h"
#include "model_info.h"
#include "server.h"
#include "world_host.h"

#include "sinew/model.h"
#include "sinew/sinew.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

// The embedded demo robot (generated from models/sinew_arm.urdf by cmake/embed.cmake).
extern const unsigned char demo_model_urdf[];
extern const unsigned long demo_model_urdf_size;

enum
{
	DEMO_MAX_DOFS = 256
};

static const double demo_stiffness = 2500.0;   // 1/s^2
static const double demo_damping = 100.0;      // 1/s
static const double demo_gripper_period = 4.0; // s

typedef struct demo_dof
{
	int dof;
	bool sliding;  // prismatic: the whole range, cosine
	double center; // revolute: m or rad
	double amplitude;
	double omega; // rad/s
	double phase; // rad
	double lower; // prismatic
	double upper;
} demo_dof;

typedef struct demo_motion
{
	sn_articulation_id articulation;
	int count;
	demo_dof dofs[DEMO_MAX_DOFS];
	int indices[DEMO_MAX_DOFS];
	double positions[DEMO_MAX_DOFS];
	double velocities[DEMO_MAX_DOFS];
} demo_motion;

static void target_at(const demo_dof* d, double t, double* q, double* qd)
{
	if (d->sliding)
	{
		double half = 0.5 * (d->upper - d->lower);
		*q = d->lower + half * (1.0 - cos(d->omega * t));
		*qd = half * d->omega * sin(d->omega * t);
	}
	else
	{
		*q = d->center + d->amplitude * sin(d->omega * t + d->phase);
		*qd = d->amplitude * d->omega * cos(d->omega * t + d->phase);
	}
}

// world_controller.drive: the targets for the end of the step about to be taken.
static void demo_control(void* context, sn_world* world)
{
	demo_motion* m = context;
	double t = sn_world_get_time(world) + sn_world_get_time_step(world);
	for (int i = 0; i < m->count; ++i)
	{
		target_at(&m->dofs[i], t, &m->positions[i], &m->velocities[i]);
	}
	// Fails only if the articulation is gone (a restored snapshot without it): then there is nothing to move.
	(void)sn_articulation_set_drive_targets(world, m->articulation, m->indices, m->positions, m->velocities, m->count);
}

// world_controller.hold: a client took the controls; every driven joint stops where it is (target its
// current position, at rest) until a reset gives the motion back.
static void demo_hold(void* context, sn_world* world)
{
	demo_motion* m = context;
	for (int i = 0; i < m->count; ++i)
	{
		m->positions[i] = sn_articulation_get_joint_position(world, m->articulation, m->indices[i]);
		m->velocities[i] = 0.0;
	}
	(void)sn_articulation_set_drive_targets(world, m->articulation, m->indices, m->positions, m->velocities, m->count);
}

// Plan the motion of every driven joint of the model (by URDF joint order).
static int plan_motion(const snm_model* model, demo_motion* m, snm_drive_gains* drives, snm_joint_value* initial)
{
	int count = 0, turning = 0;
	for (int j = 0; j < model->joint_count && count < DEMO_MAX_DOFS; ++j)
	{
		const snm_joint* jt = &model->joints[j];
		if (snm_joint_dof_count(jt->type) != 1 || jt->mimic >= 0)
		{
			continue;
		}
		demo_dof* d = &m->dofs[count];
		d->dof = -1;
		d->sliding = jt->type == SNM_JOINT_PRISMATIC;
		if (d->sliding)
		{
			d->lower = jt->lower;
			d->upper = jt->upper;
			d->omega = 2.0 * SN_PI / demo_gripper_period;
		}
		else
		{
			bool limited = jt->type == SNM_JOINT_REVOLUTE;
			d->center = limited ? 0.5 * (jt->lower + jt->upper) : 0.0;
			d->amplitude = limited ? fmin(0.3 * (jt->upper - jt->lower), 0.9) : 0.9;
			d->omega = 2.0 * SN_PI / (9.0 + 2.5 * turning);
			d->phase = 1.1 * turning;
			++turning;
		}
		drives[count].joint = jt->name;
		drives[count].drive = sn_default_drive();
		drives[count].drive.enabled = true;
		drives[count].drive.type = SN_DRIVE_ACCELERATION;
		drives[count].drive.stiffness = demo_stiffness;
		drives[count].drive.damping = demo_damping;
		drives[count].max_force_from_effort = true;
		double q, qd;
		target_at(d, 0.0, &q, &qd);
		drives[count].drive.target_position = q;
		drives[count].drive.target_velocity = qd;
		initial[count].joint = jt->name;
		initial[count].value = q;
		++count;
	}
	return count;
}

static int32_t fail(sn_world* world, demo_motion* m, snm_model* model, int32_t code, const char* what,
					const char* detail)
{
	char quoted[600];
	log_error("could not build the demo world", "what=%s detail=%s", what, log_quote(quoted, sizeof(quoted), detail));
	sn_world_destroy(world);
	free(m);
	snm_model_destroy(model);
	return code;
}

// Host a built world as the demo: kept, ownerless, protected, in real time, with its controller and what
// DescribeWorld tells of its robot. Takes the world and the controller's context (freed on failure).
static int32_t host_demo(server* srv, sn_world* world, const snm_model* model, const snm_build_result* built,
						 world_controller controller, int driven)
{
	int links = built->articulation_link_count, dofs = sn_articulation_get_dof_count(world, built->articulation);
	world_host* host = NULL;
	char detail[256];
	int32_t code = world_host_create(srv, world, "demo", 0, true, &host, detail, sizeof(detail));
	if (code != 0)
	{
		controller_free(&controller);
		log_error("could not host the demo world", "detail=\"%s\"", detail);
		return code;
	}
	// What DescribeWorld tells a dashboard that opens the demo world: names and visuals of the robot, its
	// visual meshes in the asset store.
	asset_blob** meshes = model_info_store_meshes(&srv->assets, model);
	model_info info = { model, built, meshes };
	bool kept = model_info_keep(&host->models, &info, built->articulation, dofs);
	model_info_release_meshes(meshes, model->mesh_count);
	if (!kept)
	{
		controller_free(&controller);
		world_host_destroy(host, "out of memory");
		log_error("could not host the demo world", "detail=\"out of memory\"");
		return SN_ERR_NO_MEMORY;
	}
	host->destroy_protected = !srv->config.allow_demo_destroy;
	host->controller = controller;
	pacing_set(host, (time_settings){ sinew_v1_TimeMode_TIME_REALTIME, 1.0, host->pacing.lockstep_timeout_ms });
	char quoted[160];
	log_info("demo world", "world=%llu robot=%s links=%d dofs=%d driven=%d shapes=%d", (unsigned long long)host->id,
			 log_quote(quoted, sizeof(quoted), model->name), links, dofs, driven, sn_world_get_shape_count(world));
	return 0;
}

// The built-in demo: the pick-and-place of demo_scene.c.
static int32_t pick_and_place_create(server* srv)
{
	demo_scene_parts parts;
	char detail[512];
	sn_error err = demo_scene_create((const char*)demo_model_urdf, (size_t)demo_model_urdf_size, "sinew_arm.urdf",
									 &parts, detail, sizeof(detail));
	if (err != SN_ERR_OK)
	{
		return fail(NULL, NULL, NULL, err, "the demo scene", detail);
	}
	world_controller controller = {
		.drive = demo_scene_drive, .hold = demo_scene_hold, .release = free, .context = parts.scene
	};
	parts.scene = NULL; // the controller's now
	sn_world* world = parts.world;
	parts.world = NULL; // the host's now, also on failure
	int32_t code = host_demo(srv, world, parts.model, &parts.robot, controller, DEMO_ARM_JOINTS + 1);
	demo_scene_parts_free(&parts);
	return code;
}

int32_t demo_world_create(server* srv)
{
	const char* model_path = srv->config.demo_model;
	if (model_path[0] == '\0')
	{
		return pick_and_place_create(srv);
	}
	// The robot of the file given, in the generic motion.
	snm_model* model = NULL;
	snm_error error;
	sn_error err = snm_load_urdf_file(model_path, NULL, &model, &error);
	if (err == SN_ERR_OK)
	{
		err = model_info_load_own_meshes(model, model_path, srv->config.model_path, &error);
		if (err != SN_ERR_OK)
		{
			snm_model_destroy(model);
		}
	}
	if (err != SN_ERR_OK)
	{
		return fail(NULL, NULL, NULL, err, "the demo model", error.text);
	}
	demo_motion* m = calloc(1, sizeof(*m));
	snm_drive_gains* drives = calloc(DEMO_MAX_DOFS, sizeof(snm_drive_gains));
	snm_joint_value* initial = calloc(DEMO_MAX_DOFS, sizeof(snm_joint_value));
	sn_world_def def = sn_default_world_def();
	sn_world* world = NULL;
	if (m == NULL || drives == NULL || initial == NULL || sn_world_create(&def, &world) != SN_ERR_OK)
	{
		free(drives);
		free(initial);
		return fail(world, m, model, SN_ERR_NO_MEMORY, "memory", "out of memory");
	}
	m->count = plan_motion(model, m, drives, initial);
	snm_build_def bd = snm_default_build_def();
	bd.drives = drives;
	bd.drive_count = m->count;
	bd.initial = initial;
	bd.initial_count = m->count;
	snm_build_result built;
	err = snm_build(world, model, &bd, &built, &error);
	free(drives);
	free(initial);
	if (err != SN_ERR_OK)
	{
		return fail(world, m, model, err, "the demo robot", error.text);
	}
	m->articulation = built.articulation;
	for (int i = 0, k = 0; i < model->joint_count && k < m->count; ++i)
	{
		const snm_joint* jt = &model->joints[i];
		if (snm_joint_dof_count(jt->type) == 1 && jt->mimic < 0)
		{
			m->dofs[k].dof = built.joint_dof[i];
			m->indices[k] = built.joint_dof[i];
			++k;
		}
	}
	int driven = m->count;
	world_controller controller = { .drive = demo_control, .hold = demo_hold, .release = free, .context = m };
	int32_t code = host_demo(srv, world, model, &built, controller, driven);
	snm_build_result_free(&built);
	snm_model_destroy(model);
	return code;
}
