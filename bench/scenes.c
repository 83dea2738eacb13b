#define _POSIX_C_SOURCE 199309L
#include "scenes.h"

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
