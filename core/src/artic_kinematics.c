// Articulation kinematics: link poses from the base pose and the joint positions, joint axes in the
// world, spherical joint coordinates, and the velocity of any point of a link.
//
// Link i hangs from its parent p through its joint: the parent-side joint frame is fixed in p (pose
// parent_frame), the child-side joint frame is fixed in i (child_frame), and the joint moves the second
// relative to the first:
//   revolute   rotation by q about the joint x axis           R_i = R_p Rpf Rx(q) Rcf^T
//   prismatic  translation by q along the joint x axis        R_i = R_p Rpf Rcf^T
//   spherical  rotation R(s) (s a unit quaternion)            R_i = R_p Rpf R(s) Rcf^T
//   fixed      none                                            R_i = R_p Rpf Rcf^T
// The child-side frame origin (the anchor) is P = x_p + R_p pf.p (+ q a for prismatic joints, a the
// joint axis in the world), and the link origin is x_i = P - R_i cf.p.
//
// Rx(q) = P0 + cos(q) P1 + sin(q) P2 splits into constant matrices, so Rpf Rx(q) Rcf^T = k0 + cos(q) k1 +
// sin(q) k2 is precomputed per link (articulation.c) and costs one sine and cosine per revolute joint.
//
// Spherical joints: s rotates the child-side joint frame into the parent-side one. The joint's three dofs
// are the rotation vector of s (its components along the parent-side joint axes), and its three speeds
// are the components of the relative angular velocity w_i - w_p along the same axes. With the speeds
// fixed in the parent-side frame, ds/dt = 1/2 [0, omega] s, so a step advances s <- exp(h omega) s.
#include "artic.h"

#include "mathx.h"

#include <math.h>

static sn_mat33 mat33_add3(sn_mat33 a, double cb, sn_mat33 b, double cc, sn_mat33 c)
{
	sn_mat33 m;
	m.cx = sn_add(a.cx, sn_add(sn_scale(cb, b.cx), sn_scale(cc, c.cx)));
	m.cy = sn_add(a.cy, sn_add(sn_scale(cb, b.cy), sn_scale(cc, c.cy)));
	m.cz = sn_add(a.cz, sn_add(sn_scale(cb, b.cz), sn_scale(cc, c.cz)));
	return m;
}

void artic_update_kinematics(artic* a)
{
	artic_kin* k0 = a->kin;
	k0->rot = sn_mat33_from_quat(a->base_pose.q);
	k0->pos = a->base_pose.p;
	k0->joint = k0->rot;
	k0->anchor = k0->pos;
	for (int i = 1; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		const artic_kin* p = a->kin + l->parent;
		artic_kin* k = a->kin + i;
		sn_vec3 anchor = sn_add(p->pos, sn_mat33_mul_v(p->rot, l->parent_frame.p));
		switch (l->type)
		{
			case SN_LINK_JOINT_REVOLUTE:
			{
				double q = a->q[l->dof];
				sn_mat33 rel = mat33_add3(l->k0, cos(q), l->k1, sin(q), l->k2);
				k->rot = sn_mat33_mul(p->rot, rel);
				k->joint.cx = sn_mat33_mul_v(p->rot, l->pf_rot.cx);
				break;
			}
			case SN_LINK_JOINT_PRISMATIC:
				k->rot = sn_mat33_mul(p->rot, l->k0);
				k->joint.cx = sn_mat33_mul_v(p->rot, l->pf_rot.cx);
				anchor = sn_mul_add(anchor, a->q[l->dof], k->joint.cx);
				break;
			case SN_LINK_JOINT_SPHERICAL:
				k->joint = sn_mat33_mul(p->rot, l->pf_rot);
				k->rot = sn_mat33_mul(sn_mat33_mul(k->joint, sn_mat33_from_quat(a->sph[i])), l->cf_rot_t);
				break;
			default:
				k->rot = sn_mat33_mul(p->rot, l->k0);
				k->joint.cx = sn_mat33_mul_v(p->rot, l->pf_rot.cx);
				break;
		}
		if (l->type != SN_LINK_JOINT_SPHERICAL)
		{
			// Only the axis is used for one-dof and fixed joints; the other columns stay defined.
			k->joint.cy = sn_mat33_mul_v(p->rot, l->pf_rot.cy);
			k->joint.cz = sn_mat33_mul_v(p->rot, l->pf_rot.cz);
		}
		k->anchor = anchor;
		k->pos = sn_sub(anchor, sn_mat33_mul_v(k->rot, l->child_frame.p));
	}
}

void artic_sync_spherical(artic* a)
{
	for (int i = 1; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		if (l->type == SN_LINK_JOINT_SPHERICAL)
		{
			sn_vec3 rv = quat_log(a->sph[i]);
			a->q[l->dof] = rv.x;
			a->q[l->dof + 1] = rv.y;
			a->q[l->dof + 2] = rv.z;
		}
	}
}

void artic_point_velocity(const artic* a, int link, sn_vec3 point, sn_vec3* linear, sn_vec3* angular)
{
	// Sum the joint motions along the path to the base: each revolute or spherical joint turns the
	// point about its anchor, each prismatic joint slides it.
	sn_vec3 v = sn_v3(0, 0, 0), w = sn_v3(0, 0, 0);
	for (int i = link; i > 0; i = a->links[i].parent)
	{
		const artic_link* l = a->links + i;
		const artic_kin* k = a->kin + i;
		const double* qd = a->qd + l->dof;
		sn_vec3 wj;
		switch (l->type)
		{
			case SN_LINK_JOINT_REVOLUTE:
				wj = sn_scale(qd[0], k->joint.cx);
				w = sn_add(w, wj);
				v = sn_add(v, sn_cross(wj, sn_sub(point, k->anchor)));
				break;
			case SN_LINK_JOINT_PRISMATIC:
				v = sn_mul_add(v, qd[0], k->joint.cx);
				break;
			case SN_LINK_JOINT_SPHERICAL:
				wj = sn_mat33_mul_v(k->joint, sn_v3(qd[0], qd[1], qd[2]));
				w = sn_add(w, wj);
				v = sn_add(v, sn_cross(wj, sn_sub(point, k->anchor)));
				break;
			default:
				break;
		}
	}
	if (!a->fixed_base)
	{
		w = sn_add(w, a->base_w);
		v = sn_add(v, sn_add(a->base_v, sn_cross(a->base_w, sn_sub(point, a->base_pose.p))));
	}
	*linear = v;
	*angular = w;
}
