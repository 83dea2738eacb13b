// Articulation dynamics: Featherstone's articulated-body algorithm (ABA) for the free motion, the same
// recursion applied to joint impulses (M^-1 y), position integration and the incoming joint forces.
//
// All spatial quantities are world-aligned and taken about one point O (spatial.h), so a child's and a
// parent's vectors add without transforms. Notation per link i with parent p: S_i the 6 x n_i motion
// subspace of its joint (revolute (a, (P - O) x a), prismatic (0, a), spherical three revolute columns
// along the parent-side joint axes through the anchor P), I_i the rigid inertia about O, v_i and a_i
// spatial velocity and acceleration, f_i the force the parent applies through the joint.
//
// Equations of motion (gravity a_g = (0, g), external force f_ext):
//   f_i - sum_{c child of i} f_c + f_ext,i + I_i a_g = I_i a_i + v_i x* I_i v_i
//   a_i = a_p + S_i qdd_i + c_i,  c_i = v_p x (S_i qd_i)       (S_i is fixed in the parent: dS/dt = v_p x S)
//   S_i^T f_i = tau_i                                          (the joint's generalised force)
// Split a_i = a0_i + da_i with a0_i = a0_p + c_i and a0_base = -a_g (gravity becomes an upward
// acceleration of the base, so no link needs a gravity force). Then
//   f_i = I_i da_i + p0_i + sum_c f_c,   p0_i = I_i a0_i + v_i x* I_i v_i - f_ext,i,   da_i = da_p + S_i qdd_i
// which is a system without velocity terms, driven by the bias forces p0. All velocity-product terms
// sit in p0 and are computed with rigid (10-number) inertias, never with articulated ones.
//
// Articulated-body induction (inward pass). Suppose every child obeys f_c = IA_c da_c + pA_c (true for
// leaves with IA = I, pA = p0). With da_c = da_i + S_c qdd_c and S_c^T f_c = tau_c:
//   qdd_c = D_c^-1 (u_c - U_c^T da_i),  U_c = IA_c S_c,  D_c = S_c^T U_c,  u_c = tau_c - S_c^T pA_c
//   f_c   = (IA_c - U_c D_c^-1 U_c^T) da_i + pA_c + U_c D_c^-1 u_c
// so link i obeys the same law with
//   IA_i = I_i + sum_c (IA_c - U_c D_c^-1 U_c^T),   pA_i = p0_i + sum_c (pA_c + U_c D_c^-1 u_c).
// Base: fixed, da_0 = 0; floating, no joint force, so 0 = IA_0 da_0 + pA_0 and da_0 = -IA_0^-1 pA_0.
// Outward pass: qdd_i = D_i^-1 (u_i - U_i^T da_p), da_i = da_p + S_i qdd_i. O(n) in links.
//
// Joint damping b is implicit: tau = tau_applied - b qd_{n+1} = tau_applied - b qd - h b qdd, and the
// last term moves into D (D += h b). Armature J adds a dof inertia: D += J. Both therefore also shape
// every impulse response below.
//
// Impulses (Mirtich's test impulses, seed 000). A generalised impulse y on the dofs changes the velocities
// by M^-1 y, with M the joint-space inertia (including armature and h b). It is the same recursion with
// no velocities, gravity or external forces (p0 = 0) and tau = y: inward, the articulated impulses
//   z_p += z_i + U_i D_i^-1 (y_i - S_i^T z_i);
// at the base dv_0 = -IA_0^-1 z_0 (floating) or 0 (fixed); outward,
//   dqd_i = D_i^-1 (y_i - S_i^T z_i - U_i^T dv_p),  dv_i = dv_p + S_i dqd_i.
//
// Time stepping (semi-implicit Euler): qd* = qd + h qdd (the free motion), then rows add M^-1 P and
// positions advance with the new velocities (artic_solve.c gives the exact sum for PGS and TGS).
//
// Incoming joint forces: with the step's effective acceleration qdd_eff = (qd_{n+1} - qd_n) / h (and
// the base's), f_i = I_i da_i + p0_i + sum_c f_c evaluated at the state the step started from. Its
// component S_i^T f_i is the joint's whole generalised force (applied, damping, drives, limits, friction,
// mimic); the rest is the constraint force the joint transmits. Torque is moved from O to the anchor.
#include "artic.h"

#include "mathx.h"

#include <math.h>
#include <string.h>

// Motion subspace columns of link i's joint at its start-of-solve pose, about O.
static void joint_subspace(const artic* a, int i, sn_vec3 origin)
{
	const artic_link* l = a->links + i;
	const artic_kin* k = a->kin + i;
	artic_dof_work* dw = a->dw + l->dof;
	sn_vec3 r = sn_sub(k->anchor, origin);
	switch (l->type)
	{
		case SN_LINK_JOINT_REVOLUTE:
			dw[0].s = sv6_make(k->joint.cx, sn_cross(r, k->joint.cx));
			break;
		case SN_LINK_JOINT_PRISMATIC:
			dw[0].s = sv6_make(sn_v3(0, 0, 0), k->joint.cx);
			break;
		case SN_LINK_JOINT_SPHERICAL:
			dw[0].s = sv6_make(k->joint.cx, sn_cross(r, k->joint.cx));
			dw[1].s = sv6_make(k->joint.cy, sn_cross(r, k->joint.cy));
			dw[2].s = sv6_make(k->joint.cz, sn_cross(r, k->joint.cz));
			break;
		default:
			break;
	}
}

// Three-dof joint: D = S^T U + diag(extra), its inverse into w->dinv (row-major 3x3).
static void spherical_factor(artic_work* w, const artic_dof_work* dw, double extra)
{
	sn_mat33 d;
	d.cx = sn_v3(sv6_dot(dw[0].s, dw[0].u6), sv6_dot(dw[1].s, dw[0].u6), sv6_dot(dw[2].s, dw[0].u6));
	d.cy = sn_v3(d.cx.y, sv6_dot(dw[1].s, dw[1].u6), sv6_dot(dw[2].s, dw[1].u6));
	d.cz = sn_v3(d.cx.z, d.cy.z, sv6_dot(dw[2].s, dw[2].u6));
	d.cx.x += extra;
	d.cy.y += extra;
	d.cz.z += extra;
	sn_mat33 inv = mat33_inverse(d);
	double m[9] = { inv.cx.x, inv.cy.x, inv.cz.x, inv.cx.y, inv.cy.y, inv.cz.y, inv.cx.z, inv.cy.z, inv.cz.z };
	memcpy(w->dinv, m, sizeof(m));
}

// x = Dinv t for a three-dof joint.
static void dinv3_mul(const double* dinv, const double* t, double* x)
{
	for (int r = 0; r < 3; ++r)
	{
		x[r] = dinv[r * 3] * t[0] + dinv[r * 3 + 1] * t[1] + dinv[r * 3 + 2] * t[2];
	}
}

// IA_p += IA - U Dinv U^T for a three-dof joint, and the bias pA_p += pA + U Dinv u.
static void spherical_inward(artic_work* parent, const artic_work* w, const artic_dof_work* dw)
{
	// UD_j = sum_k U_k Dinv_kj; the symmetric update is sum_j UD_j U_j^T.
	sv6 ud[3];
	for (int j = 0; j < 3; ++j)
	{
		ud[j] = sv6_zero();
		for (int k = 0; k < 3; ++k)
		{
			ud[j] = sv6_mul_add(ud[j], w->dinv[k * 3 + j], dw[k].u6);
		}
	}
	ainertia* dst = &parent->ia;
	ainertia_add_to(dst, &w->ia);
	for (int j = 0; j < 3; ++j)
	{
		sn_vec3 xw = ud[j].w, xv = ud[j].v, yw = dw[j].u6.w, yv = dw[j].u6.v;
		dst->a.xx -= xw.x * yw.x;
		dst->a.yy -= xw.y * yw.y;
		dst->a.zz -= xw.z * yw.z;
		dst->a.xy -= xw.x * yw.y;
		dst->a.xz -= xw.x * yw.z;
		dst->a.yz -= xw.y * yw.z;
		dst->c.xx -= xv.x * yv.x;
		dst->c.yy -= xv.y * yv.y;
		dst->c.zz -= xv.z * yv.z;
		dst->c.xy -= xv.x * yv.y;
		dst->c.xz -= xv.x * yv.z;
		dst->c.yz -= xv.y * yv.z;
		dst->b.cx = sn_mul_add(dst->b.cx, -yv.x, xw);
		dst->b.cy = sn_mul_add(dst->b.cy, -yv.y, xw);
		dst->b.cz = sn_mul_add(dst->b.cz, -yv.z, xw);
	}
	double u[3] = { dw[0].u, dw[1].u, dw[2].u }, x[3];
	dinv3_mul(w->dinv, u, x);
	sv6 pa = w->pa;
	for (int k = 0; k < 3; ++k)
	{
		pa = sv6_mul_add(pa, x[k], dw[k].u6);
	}
	parent->pa = sv6_add(parent->pa, pa);
}

void artic_forward(artic* a, sn_vec3 gravity, double h)
{
	const int n = a->link_count;
	const sn_vec3 origin = a->base_pose.p;
	a->origin = origin;
	const sv6 minus_g = sv6_make(sn_v3(0, 0, 0), sn_scale(-a->gravity_scale, gravity));

	// Pass 1, outward: inertias about O, velocities, bias accelerations and forces.
	for (int i = 0; i < n; ++i)
	{
		const artic_link* l = a->links + i;
		const artic_kin* k = a->kin + i;
		artic_work* w = a->work + i;
		w->r = sn_sub(sn_add(k->pos, sn_mat33_mul_v(k->rot, l->com)), origin);
		w->ic = sym33_rotate(k->rot, &l->inertia);
		if (i == 0)
		{
			w->v = a->fixed_base ? sv6_zero() : sv6_make(a->base_w, a->base_v);
			w->a0 = minus_g;
		}
		else
		{
			const artic_work* p = a->work + l->parent;
			joint_subspace(a, i, origin);
			artic_dof_work* dw = a->dw + l->dof;
			sv6 vj = sv6_zero();
			for (int d = 0; d < l->dof_count; ++d)
			{
				double qd = a->qd[l->dof + d];
				vj = sv6_mul_add(vj, qd, dw[d].s);
				dw[d].tau = a->joint_force[l->dof + d] - l->joint_damping * qd;
			}
			w->v = sv6_add(p->v, vj);
			w->a0 = sv6_add(p->a0, sv6_cross_motion(p->v, vj));
		}
		sv6 momentum = rigid_mul(l->mass, w->r, &w->ic, w->v);
		sv6 fext = a->link_force[i];
		fext.w = sn_sub(fext.w, sn_cross(origin, fext.v));
		w->p0 = sv6_sub(sv6_add(rigid_mul(l->mass, w->r, &w->ic, w->a0), sv6_cross_force(w->v, momentum)), fext);
		w->pa = w->p0;
		ainertia_from_rigid(&w->ia, l->mass, w->r, &w->ic);
	}

	// Pass 2, inward: articulated inertias and bias forces.
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		artic_work* p = a->work + l->parent;
		artic_dof_work* dw = a->dw + l->dof;
		double extra = l->armature + h * l->joint_damping;
		if (l->dof_count == 1)
		{
			dw->u6 = ainertia_mul(&w->ia, dw->s);
			double dinv = 1.0 / (sv6_dot(dw->s, dw->u6) + extra);
			w->dinv[0] = dinv;
			dw->u = dw->tau - sv6_dot(dw->s, w->pa);
			ainertia_add_rank1(&p->ia, &w->ia, dinv, dw->u6);
			p->pa = sv6_add(p->pa, sv6_mul_add(w->pa, dinv * dw->u, dw->u6));
		}
		else if (l->dof_count == 3)
		{
			for (int d = 0; d < 3; ++d)
			{
				dw[d].u6 = ainertia_mul(&w->ia, dw[d].s);
				dw[d].u = dw[d].tau - sv6_dot(dw[d].s, w->pa);
			}
			spherical_factor(w, dw, extra);
			spherical_inward(p, w, dw);
		}
		else
		{
			ainertia_add_to(&p->ia, &w->ia);
			p->pa = sv6_add(p->pa, w->pa);
		}
	}

	// The base.
	artic_work* base = a->work;
	if (a->fixed_base)
	{
		base->da = sv6_zero();
	}
	else
	{
		double dense[36];
		ainertia_to_dense(&base->ia, dense);
		if (!spd_inverse(dense, 6, a->base_inv))
		{
			memset(a->base_inv, 0, sizeof(a->base_inv));
		}
		base->da = sv6_scale(-1.0, dense6_mul(a->base_inv, base->pa));
	}

	// Pass 3, outward: joint accelerations.
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		const sv6 dap = a->work[l->parent].da;
		artic_dof_work* dw = a->dw + l->dof;
		w->da = dap;
		if (l->dof_count == 1)
		{
			dw->qdd = w->dinv[0] * (dw->u - sv6_dot(dw->u6, dap));
			w->da = sv6_mul_add(w->da, dw->qdd, dw->s);
		}
		else if (l->dof_count == 3)
		{
			double t[3], x[3];
			for (int d = 0; d < 3; ++d)
			{
				t[d] = dw[d].u - sv6_dot(dw[d].u6, dap);
			}
			dinv3_mul(w->dinv, t, x);
			for (int d = 0; d < 3; ++d)
			{
				dw[d].qdd = x[d];
				w->da = sv6_mul_add(w->da, x[d], dw[d].s);
			}
		}
	}

	// The free-motion kick.
	for (int d = 0; d < a->dof_count; ++d)
	{
		a->qd_start[d] = a->qd[d];
		a->qd_free[d] = a->qd[d] + h * a->dw[d].qdd;
	}
	a->base_v_start = a->work[0].v;
	a->base_v_free = sv6_mul_add(a->work[0].v, h, base->da);
}

void artic_impulse_response(artic* a, int rhs_count, sv6* base_out)
{
	const int n = a->link_count;
	for (int i = 0; i < n; ++i)
	{
		a->work[i].z[0] = sv6_zero();
		a->work[i].z[1] = sv6_zero();
	}
	// Inward: u = y - S^T z is kept in y; the parent receives z + U Dinv u.
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		artic_work* p = a->work + l->parent;
		artic_dof_work* dw = a->dw + l->dof;
		for (int r = 0; r < rhs_count; ++r)
		{
			sv6 z = w->z[r];
			if (l->dof_count == 1)
			{
				dw->y[r] -= sv6_dot(dw->s, z);
				z = sv6_mul_add(z, w->dinv[0] * dw->y[r], dw->u6);
			}
			else if (l->dof_count == 3)
			{
				double u[3], x[3];
				for (int d = 0; d < 3; ++d)
				{
					dw[d].y[r] -= sv6_dot(dw[d].s, z);
					u[d] = dw[d].y[r];
				}
				dinv3_mul(w->dinv, u, x);
				for (int d = 0; d < 3; ++d)
				{
					z = sv6_mul_add(z, x[d], dw[d].u6);
				}
			}
			p->z[r] = sv6_add(p->z[r], z);
		}
	}
	// The base, then outward: z now holds each link's velocity change.
	for (int r = 0; r < rhs_count; ++r)
	{
		sv6 dv0 = a->fixed_base ? sv6_zero() : sv6_scale(-1.0, dense6_mul(a->base_inv, a->work[0].z[r]));
		a->work[0].z[r] = dv0;
		base_out[r] = dv0;
	}
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		artic_dof_work* dw = a->dw + l->dof;
		for (int r = 0; r < rhs_count; ++r)
		{
			sv6 dvp = a->work[l->parent].z[r];
			sv6 dv = dvp;
			if (l->dof_count == 1)
			{
				double x = w->dinv[0] * (dw->y[r] - sv6_dot(dw->u6, dvp));
				dw->y[r] = x;
				dv = sv6_mul_add(dv, x, dw->s);
			}
			else if (l->dof_count == 3)
			{
				double t[3], x[3];
				for (int d = 0; d < 3; ++d)
				{
					t[d] = dw[d].y[r] - sv6_dot(dw[d].u6, dvp);
				}
				dinv3_mul(w->dinv, t, x);
				for (int d = 0; d < 3; ++d)
				{
					dw[d].y[r] = x[d];
					dv = sv6_mul_add(dv, x[d], dw[d].s);
				}
			}
			w->z[r] = dv;
		}
	}
}

// Incoming joint forces of the solve (see the file header), accumulated as impulses h f into incoming.
static void incoming_forces(artic* a, double h, sv6 base_dv)
{
	const int n = a->link_count;
	const double inv_h = 1.0 / h;
	// Outward: effective accelerations beyond a0; each link's own share I da + p0 goes into z[0].
	a->work[0].da = sv6_scale(inv_h, base_dv);
	for (int i = 0; i < n; ++i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		if (i > 0)
		{
			w->da = a->work[l->parent].da;
			for (int d = 0; d < l->dof_count; ++d)
			{
				double qdd = (a->qd[l->dof + d] - a->qd_start[l->dof + d]) * inv_h;
				w->da = sv6_mul_add(w->da, qdd, a->dw[l->dof + d].s);
			}
		}
		w->z[0] = sv6_add(w->p0, rigid_mul(l->mass, w->r, &w->ic, w->da));
	}
	// Inward: add the children's joint forces.
	for (int i = n - 1; i > 0; --i)
	{
		artic_work* p = a->work + a->links[i].parent;
		p->z[0] = sv6_add(p->z[0], a->work[i].z[0]);
	}
	for (int i = 0; i < n; ++i)
	{
		if (i == 0 && !a->fixed_base)
		{
			continue; // a floating base has no inbound joint
		}
		sv6 f = a->work[i].z[0];
		sn_vec3 arm = sn_sub(a->kin[i].anchor, a->origin);
		sv6 at_anchor = sv6_make(sn_sub(f.w, sn_cross(arm, f.v)), f.v);
		a->incoming[i] = sv6_mul_add(a->incoming[i], h, at_anchor);
	}
}

void artic_finish(artic* a, double h, bool have_rows)
{
	const int nd = a->dof_count;
	sv6 base[2] = { sv6_zero(), sv6_zero() };
	if (have_rows)
	{
		artic_impulse_response(a, 2, base);
	}
	// New velocities and the position change of every dof: free motion plus the rows' effect.
	for (int d = 0; d < nd; ++d)
	{
		artic_dof_work* dw = a->dw + d;
		double qd = a->qd_free[d];
		double dq = h * qd;
		if (have_rows)
		{
			qd += dw->y[0];
			dq += dw->y[1];
		}
		double vmax = a->links[a->dof_link[d]].max_joint_velocity;
		if (fabs(qd) > vmax)
		{
			qd = copysign(vmax, qd);
		}
		if (fabs(dq) > vmax * h)
		{
			dq = copysign(vmax * h, dq);
		}
		a->qd[d] = qd;
		dw->y[1] = dq;
	}
	sv6 base_v = sv6_add(a->base_v_free, base[0]);
	sv6 base_dx = sv6_mul_add(base[1], h, a->base_v_free);
	if (a->fixed_base)
	{
		base_v = sv6_zero();
		base_dx = sv6_zero();
	}
	incoming_forces(a, h, sv6_sub(base_v, a->base_v_start));

	// Positions.
	for (int i = 1; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		if (l->type == SN_LINK_JOINT_SPHERICAL)
		{
			const artic_dof_work* dw = a->dw + l->dof;
			sn_vec3 rot = sn_v3(dw[0].y[1], dw[1].y[1], dw[2].y[1]);
			a->sph[i] = sn_quat_normalize(sn_quat_mul(quat_exp(rot), a->sph[i]));
		}
		else if (l->dof_count == 1)
		{
			a->q[l->dof] += a->dw[l->dof].y[1];
		}
	}
	if (!a->fixed_base)
	{
		// base_v is about O, the base origin when the solve began: the origin moves with the body point at
		// O, and its new velocity is that of the body point now at the new origin.
		a->base_pose.p = sn_add(a->base_pose.p, base_dx.v);
		a->base_pose.q = sn_quat_normalize(sn_quat_mul(quat_exp(base_dx.w), a->base_pose.q));
		a->base_w = base_v.w;
		a->base_v = sn_add(base_v.v, sn_cross(base_v.w, sn_sub(a->base_pose.p, a->origin)));
	}
	artic_sync_spherical(a);
	artic_update_kinematics(a);
}
