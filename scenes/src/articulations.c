// Articulation scenes (articulations.h).
#include "scenes/articulations.h"

#include <math.h>
#include <stdlib.h>

sn_link_def scene_hinge_link(int parent, sn_vec3 joint_in_parent, double mass, double arm, sn_mat33 inertia)
{
	sn_link_def l = sn_default_link_def();
	l.parent = parent;
	l.joint_type = SN_LINK_JOINT_REVOLUTE;
	l.parent_frame.p = joint_in_parent;
	l.parent_frame.q = scene_x_to_y();
	l.child_frame.q = scene_x_to_y();
	l.mass = mass;
	l.inertia = inertia;
	l.center_of_mass = sn_v3(arm, 0, 0);
	return l;
}

sn_error scene_artic_pendulum(sn_world* world, double length, double mass, sn_articulation_id* pendulum)
{
	sn_link_def links[2];
	links[0] = sn_default_link_def();
	links[1] = scene_hinge_link(0, sn_v3(0, 0, 0), mass, length, sn_mat33_diag(4e-5, 4e-5, 4e-5));
	sn_articulation_def ad = sn_default_articulation_def();
	return sn_create_articulation(world, &ad, links, 2, pendulum);
}

sn_error scene_artic_chain(sn_world* world, int n, bool midpoint, sn_articulation_id* chain)
{
	const double half = 0.25;
	if (n < 1)
	{
		return SN_ERR_INVALID_ARGUMENT;
	}
	// The core takes the link defs whole; a long chain's are too many for the stack.
	sn_link_def* links = calloc((size_t)n + 1, sizeof(sn_link_def));
	if (links == NULL)
	{
		return SN_ERR_NO_MEMORY;
	}
	sn_quat x_to_y = scene_x_to_y();
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
	sn_error err = sn_create_articulation(world, &ad, links, n + 1, chain);
	free(links);
	return err;
}

sn_error scene_arm(sn_world* world, sn_articulation_id* arm)
{
	sn_link_def links[SCENE_ARM_LINKS + 1];
	sn_quat x_to_y = scene_x_to_y();
	sn_quat x_to_z = scene_x_to_z();
	for (int i = 0; i <= SCENE_ARM_LINKS; ++i)
	{
		sn_link_def* l = links + i;
		*l = sn_default_link_def();
		l->mass = SCENE_ARM_MASS;
		l->inertia = sn_inertia_box(SCENE_ARM_MASS, sn_v3(0.5 * SCENE_ARM_LENGTH, 0.025, 0.025));
		l->center_of_mass = sn_v3(0.5 * SCENE_ARM_LENGTH, 0, 0);
		if (i == 0)
		{
			continue;
		}
		l->parent = i - 1;
		l->joint_type = SN_LINK_JOINT_REVOLUTE;
		sn_quat axis = (i % 2 == 1) ? x_to_y : x_to_z;
		l->parent_frame.q = axis;
		l->child_frame.q = axis;
		l->parent_frame.p = i == 1 ? sn_v3(0, 0, 0) : sn_v3(SCENE_ARM_LENGTH, 0, 0);
		l->drive[0].enabled = true;
		l->drive[0].stiffness = SCENE_ARM_KP;
		l->drive[0].damping = SCENE_ARM_KD;
		l->drive[0].target_position = SCENE_ARM_TARGET;
	}
	sn_articulation_def ad = sn_default_articulation_def();
	return sn_create_articulation(world, &ad, links, SCENE_ARM_LINKS + 1, arm);
}

double scene_arm_root_sag(void)
{
	// Walk the arm with every joint at the target: rotation R accumulates Ry or Rz by the target, each
	// link runs along R x. The gravity torque about the root's y axis is sum m g x_com.
	double r[3][3] = { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 1 } };
	double p[3] = { 0, 0, 0 }, torque = 0.0;
	double c = cos(SCENE_ARM_TARGET), s = sin(SCENE_ARM_TARGET);
	for (int i = 0; i < SCENE_ARM_LINKS; ++i)
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
		torque += SCENE_ARM_MASS * SCENE_GRAVITY * (p[0] + 0.5 * SCENE_ARM_LENGTH * dir[0]);
		for (int a = 0; a < 3; ++a)
		{
			p[a] += SCENE_ARM_LENGTH * dir[a];
		}
	}
	return torque / SCENE_ARM_KP;
}
