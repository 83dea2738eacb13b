#define _POSIX_C_SOURCE 199309L
#include "scenes.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum
{
	LINK_HALF_LENGTH_MM = 250
};

int chain_scene_create(chain_scene* scene, int n, sn_solver solver, double dt, int position_iterations,
					   int velocity_iterations)
{
	const double half = 0.25;
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	wd.position_iterations = position_iterations;
	wd.velocity_iterations = velocity_iterations;
	scene->n = n;
	scene->bodies = calloc((size_t)n, sizeof(sn_body_id));
	scene->joints = calloc((size_t)n, sizeof(sn_joint_id));
	if (scene->bodies == NULL || scene->joints == NULL || sn_world_create(&wd, &scene->world) != SN_ERR_OK)
	{
		return -1;
	}
	// Hinge axis along world y: the joint frame's x axis is turned onto y.
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	for (int i = 0; i < n; ++i)
	{
		sn_body_def bd = sn_default_body_def();
		bd.pose.p = sn_v3(half + 2.0 * half * i, 0.0, 0.0);
		bd.mass = 1.0;
		bd.inertia = sn_inertia_box(1.0, sn_v3(half, 0.05, 0.05));
		if (sn_create_body(scene->world, &bd, scene->bodies + i) != SN_ERR_OK)
		{
			return -1;
		}
		sn_hinge_joint_def hd = sn_default_hinge_joint_def();
		if (i > 0)
		{
			hd.base.body_a = scene->bodies[i - 1];
			hd.base.frame_a.p = sn_v3(half, 0, 0);
		}
		hd.base.body_b = scene->bodies[i];
		hd.base.frame_b.p = sn_v3(-half, 0, 0);
		hd.base.frame_a.q = x_to_y;
		hd.base.frame_b.q = x_to_y;
		if (sn_create_hinge_joint(scene->world, &hd, scene->joints + i) != SN_ERR_OK)
		{
			return -1;
		}
	}
	return 0;
}

void chain_scene_destroy(chain_scene* scene)
{
	sn_world_destroy(scene->world);
	free(scene->bodies);
	free(scene->joints);
}

int grid_scene_create(grid_scene* scene, int side, sn_solver solver, double dt, int position_iterations,
					  int velocity_iterations)
{
	const double s = 0.25;
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	wd.position_iterations = position_iterations;
	wd.velocity_iterations = velocity_iterations;
	scene->side = side;
	scene->joint_count = 0;
	scene->bodies = calloc((size_t)(side * side), sizeof(sn_body_id));
	scene->joints = calloc((size_t)(2 * side * side), sizeof(sn_joint_id));
	if (scene->bodies == NULL || scene->joints == NULL || sn_world_create(&wd, &scene->world) != SN_ERR_OK)
	{
		return -1;
	}
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	for (int i = 0; i < side; ++i)
	{
		for (int k = 0; k < side; ++k)
		{
			sn_body_def bd = sn_default_body_def();
			bd.pose.p = sn_v3(s * (i + 0.5), s * k, 0.0);
			bd.inertia = sn_inertia_box(1.0, sn_v3(0.5 * s, 0.5 * s, 0.02));
			sn_body_id* b = scene->bodies + i * side + k;
			if (sn_create_body(scene->world, &bd, b) != SN_ERR_OK)
			{
				return -1;
			}
			sn_hinge_joint_def hd = sn_default_hinge_joint_def();
			hd.base.frame_a.q = x_to_y;
			hd.base.frame_b.q = x_to_y;
			hd.base.body_b = *b;
			hd.base.frame_b.p = sn_v3(-0.5 * s, 0, 0);
			if (i > 0)
			{
				hd.base.body_a = scene->bodies[(i - 1) * side + k];
				hd.base.frame_a.p = sn_v3(0.5 * s, 0, 0);
			}
			else
			{
				hd.base.frame_a.p = sn_v3(0, s * k, 0);
			}
			if (sn_create_hinge_joint(scene->world, &hd, scene->joints + scene->joint_count++) != SN_ERR_OK)
			{
				return -1;
			}
			if (k > 0)
			{
				hd.base.body_a = scene->bodies[i * side + k - 1];
				hd.base.frame_a.p = sn_v3(0, 0.5 * s, 0);
				hd.base.frame_b.p = sn_v3(0, -0.5 * s, 0);
				if (sn_create_hinge_joint(scene->world, &hd, scene->joints + scene->joint_count++) != SN_ERR_OK)
				{
					return -1;
				}
			}
		}
	}
	return 0;
}

void grid_scene_destroy(grid_scene* scene)
{
	sn_world_destroy(scene->world);
	free(scene->bodies);
	free(scene->joints);
}

static sn_transform joint_frame_world(sn_world* world, sn_joint_id j, bool side_b)
{
	sn_transform f = side_b ? sn_joint_get_frame_b(world, j) : sn_joint_get_frame_a(world, j);
	sn_body_id b = side_b ? sn_joint_get_body_b(world, j) : sn_joint_get_body_a(world, j);
	return sn_body_id_is_null(b) ? f : sn_transform_mul(sn_body_get_pose(world, b), f);
}

double joints_max_anchor_gap(sn_world* world, const sn_joint_id* joints, int count)
{
	double worst = 0.0;
	for (int i = 0; i < count; ++i)
	{
		sn_vec3 pa = joint_frame_world(world, joints[i], false).p;
		sn_vec3 pb = joint_frame_world(world, joints[i], true).p;
		double e = sn_length(sn_sub(pb, pa));
		worst = e > worst ? e : worst;
	}
	return worst;
}

double joints_max_axis_error(sn_world* world, const sn_joint_id* joints, int count)
{
	double worst = 0.0;
	for (int i = 0; i < count; ++i)
	{
		sn_vec3 xa = sn_rotate(joint_frame_world(world, joints[i], false).q, sn_v3(1, 0, 0));
		sn_vec3 xb = sn_rotate(joint_frame_world(world, joints[i], true).q, sn_v3(1, 0, 0));
		double e = atan2(sn_length(sn_cross(xa, xb)), sn_dot(xa, xb));
		worst = e > worst ? e : worst;
	}
	return worst;
}

double chain_scene_max_joint_error(const chain_scene* scene)
{
	double worst = 0.0;
	for (int i = 0; i < scene->n; ++i)
	{
		sn_joint_id j = scene->joints[i];
		sn_transform fa = sn_joint_get_frame_a(scene->world, j);
		sn_transform fb = sn_joint_get_frame_b(scene->world, j);
		sn_body_id a = sn_joint_get_body_a(scene->world, j);
		sn_body_id b = sn_joint_get_body_b(scene->world, j);
		sn_vec3 pa = sn_body_id_is_null(a) ? fa.p : sn_transform_point(sn_body_get_pose(scene->world, a), fa.p);
		sn_vec3 pb = sn_transform_point(sn_body_get_pose(scene->world, b), fb.p);
		double e = sn_length(sn_sub(pb, pa));
		worst = e > worst ? e : worst;
	}
	return worst;
}

int artic_chain_scene_create(artic_chain_scene* scene, int n, sn_solver solver, double dt, int position_iterations,
							 int velocity_iterations, bool midpoint)
{
	const double half = 0.25;
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	wd.position_iterations = position_iterations;
	wd.velocity_iterations = velocity_iterations;
	scene->n = n;
	if (sn_world_create(&wd, &scene->world) != SN_ERR_OK)
	{
		return -1;
	}
	sn_link_def* links = calloc((size_t)n + 1, sizeof(sn_link_def));
	if (links == NULL)
	{
		return -1;
	}
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	links[0] = sn_default_link_def();
	for (int i = 1; i <= n; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->parent = i - 1;
		l->joint_type = SN_LINK_JOINT_REVOLUTE;
		l->mass = 1.0;
		l->inertia = sn_inertia_box(1.0, sn_v3(half, 0.05, 0.05));
		l->parent_frame.p = i == 1 ? sn_v3(0, 0, 0) : sn_v3(half, 0, 0);
		l->parent_frame.q = x_to_y;
		l->child_frame.p = sn_v3(-half, 0, 0);
		l->child_frame.q = x_to_y;
	}
	sn_articulation_def ad = sn_default_articulation_def();
	ad.midpoint_velocity_terms = midpoint;
	sn_error err = sn_create_articulation(scene->world, &ad, links, n + 1, &scene->chain);
	free(links);
	return err == SN_ERR_OK ? 0 : -1;
}

void artic_chain_scene_destroy(artic_chain_scene* scene)
{
	sn_world_destroy(scene->world);
}

static const double arm_length = 0.3, arm_mass = 2.0, arm_kp = 1e6, arm_kd = 1e3, arm_target = 0.5;

int arm_scene_create(sn_world** out_world, sn_articulation_id* out_arm, sn_solver solver, double dt)
{
	sn_world_def wd = sn_default_world_def();
	wd.solver = solver;
	wd.time_step = dt;
	if (sn_world_create(&wd, out_world) != SN_ERR_OK)
	{
		return -1;
	}
	sn_link_def links[ARM_LINKS + 1];
	sn_quat x_to_y = sn_quat_from_axis_angle(sn_v3(0, 0, 1), 0.5 * SN_PI);
	sn_quat x_to_z = sn_quat_from_axis_angle(sn_v3(0, 1, 0), -0.5 * SN_PI);
	for (int i = 0; i <= ARM_LINKS; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->mass = arm_mass;
		l->inertia = sn_inertia_box(arm_mass, sn_v3(0.5 * arm_length, 0.025, 0.025));
		l->center_of_mass = sn_v3(0.5 * arm_length, 0, 0);
		if (i == 0)
		{
			continue;
		}
		l->parent = i - 1;
		l->joint_type = SN_LINK_JOINT_REVOLUTE;
		sn_quat axis = (i % 2 == 1) ? x_to_y : x_to_z;
		l->parent_frame.q = axis;
		l->child_frame.q = axis;
		l->parent_frame.p = i == 1 ? sn_v3(0, 0, 0) : sn_v3(arm_length, 0, 0);
		l->drive[0].enabled = true;
		l->drive[0].stiffness = arm_kp;
		l->drive[0].damping = arm_kd;
		l->drive[0].target_position = arm_target;
	}
	sn_articulation_def ad = sn_default_articulation_def();
	return sn_create_articulation(*out_world, &ad, links, ARM_LINKS + 1, out_arm) == SN_ERR_OK ? 0 : -1;
}

double arm_scene_root_sag(void)
{
	// Walk the arm with every joint at the target: rotation R accumulates Ry or Rz by the target, each
	// link runs along R x. The gravity torque about the root's y axis is sum m g x_com.
	double r[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	double p[3] = { 0, 0, 0 }, torque = 0.0;
	double c = cos(arm_target), s = sin(arm_target);
	for (int i = 0; i < ARM_LINKS; ++i)
	{
		double ry[3][3] = { { c, 0, s }, { 0, 1, 0 }, { -s, 0, c } };
		double rz[3][3] = { { c, -s, 0 }, { s, c, 0 }, { 0, 0, 1 } };
		double(*j)[3] = (i % 2 == 0) ? ry : rz;
		double t[3][3];
		for (int a = 0; a < 3; ++a)
		{
			for (int b = 0; b < 3; ++b)
			{
				t[a][b] = r[a][0] * j[0][b] + r[a][1] * j[1][b] + r[a][2] * j[2][b];
			}
		}
		for (int a = 0; a < 3; ++a)
		{
			for (int b = 0; b < 3; ++b)
			{
				r[a][b] = t[a][b];
			}
		}
		double dir[3] = { r[0][0], r[1][0], r[2][0] };
		torque += arm_mass * 9.81 * (p[0] + 0.5 * arm_length * dir[0]);
		for (int a = 0; a < 3; ++a)
		{
			p[a] += arm_length * dir[a];
		}
	}
	return torque / arm_kp;
}
