// Articulation kinematics: joint frames from the base pose and the joint positions, link poses, and
// the velocity of any point of a link.
//
// Link i hangs from its parent p through its joint. The parent-side joint frame is fixed in p (pose
// parent_frame in p's link frame), the child-side joint frame is fixed in i (child_frame in i's link
// frame), and the joint moves the second relative to the first:
//   revolute   rotation by q about the joint x axis
//   prismatic  translation by q along the joint x axis
//   spherical  rotation R(s), s a unit quaternion
//   fixed      none
// The kinematics track only the child-side joint frame of each link: its world axes J_i and origin A_i
// (the anchor). Everything else is constant in that frame and precomputed at creation
// (artic/store.c): the link's centre of mass and inertia (com_j, inertia_j), and the parent-side frame of
// each child relative to this one:
//   G_i = J_p K_i                  parent-side joint axes,   K_i = Rcf_p^T Rpf_i   (K_i = Rpf_i below the base)
//   A_i = A_p + J_p t_i (+ q G_i e_x)                        t_i = Rcf_p^T (pf_i - cf_p) (t_i = pf_i below the base)
//   J_i = G_i Rx(q) = [G_x, c G_y + s G_z, -s G_y + c G_z]   revolute (c = cos q, s = sin q)
//   J_i = G_i R(s)                                            spherical
//   J_i = G_i                                                 prismatic, fixed
// For the base J_0 and A_0 are the base pose. A revolute joint costs one sine and cosine and twelve
// multiply-adds, plus 45 more when K_i is not the identity (it is when the parent's child frame and the
// child's parent frame have the same rotation). The link frame itself is R_i = J_i Rcf_i^T and
// x_i = A_i - R_i cf_i, needed only when a pose is asked for.
//
// Spherical joints: s rotates the child-side joint frame into the parent-side one. The joint's three dofs
// are the rotation vector of s (its components along the parent-side joint axes), and its three speeds
// are the components of the relative angular velocity w_i - w_p along the same axes. With the speeds
// fixed in the parent-side frame, ds/dt = 1/2 [0, omega] s, so a step advances s <- exp(h omega) s.
#include "artic/artic.h"

#include "math/mathx.h"

#include <math.h>

sn_mat33 artic_parent_joint_axes(const artic* a, int i)
{
	const artic_link* l = a->links + i;
	const sn_mat33 jp = a->kin[l->parent].joint;
	return l->k_identity ? jp : sn_mat33_mul(jp, a->k[i]);
}

void artic_update_kinematics(artic* a)
{
	a->kin[0].joint = sn_mat33_from_quat(a->base_pose.q);
	a->kin[0].anchor = a->base_pose.p;
	for (int i = 1; i < a->link_count; ++i)
	{
		artic_link_kinematics(a, i);
	}
}

sn_transform artic_link_pose(const artic* a, int link)
{
	if (link == 0)
	{
		return a->base_pose;
	}
	const artic_link_info* info = a->info + link;
	const artic_kin* k = a->kin + link;
	sn_mat33 rot = sn_mat33_mul(k->joint, info->cf_rot_t);
	sn_transform t = { sn_sub(k->anchor, sn_mat33_mul_v(rot, info->child_frame.p)), quat_from_mat33(rot) };
	return t;
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
				wj = sn_mat33_mul_v(artic_parent_joint_axes(a, i), sn_v3(qd[0], qd[1], qd[2]));
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
