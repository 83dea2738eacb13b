// Articulation dynamics: Featherstone's articulated-body algorithm (ABA) for the free motion, the same
// recursion applied to joint impulses (M^-1 y), position integration and the incoming joint forces.
//
// All spatial quantities are world-aligned and taken about one point O (math/spatial.h), so a child's and a
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
// sit in p0 and are computed with rigid inertias, never with articulated ones. p0 is Newton-Euler at the
// centre of mass c (r = c - O): with (w, v) = v_i and (alpha, a) = a0_i, the centre moves with
// v_c = v + w x r and, for zero joint accelerations, accelerates with a_c = a + alpha x r + w x v_c, so
//   p0 = (Ic alpha + w x Ic w + r x m a_c - n_ext, m a_c - f_ext).
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
// Impulses (Mirtich's test impulses, as PhysX's mimic-joint notes use them). A generalised impulse y on
// the dofs changes the velocities by M^-1 y, with M the joint-space inertia (including armature and h b).
// It is the same recursion with no velocities, gravity or external forces (p0 = 0) and tau = y: inward,
// the articulated impulses
//   z_p += z_i + U_i D_i^-1 (y_i - S_i^T z_i);
// at the base dv_0 = -IA_0^-1 z_0 (floating) or 0 (fixed); outward,
//   dqd_i = D_i^-1 (y_i - S_i^T z_i - U_i^T dv_p),  dv_i = dv_p + S_i dqd_i.
//
// Time stepping (semi-implicit Euler): qd* = qd + h qdd (the free motion), then rows add M^-1 P and
// positions advance with the new velocities (artic/solve.c gives the exact sum for PGS and TGS).
//
// Velocity terms at the midpoint (sn_articulation_def.midpoint_velocity_terms). Semi-implicit Euler is
// symplectic only when the mass matrix does not depend on q; for a chain the velocity terms taken at the
// start speeds make the energy error O(h^2) per step with a sign of its own, and long free chains gain
// energy without bound (a 50-link hanging chain gains several times its potential energy in 30 s at
// 1 ms). Evaluating them at the midpoint speeds (qd + qd*) / 2, qd* the free kick, removes the growth.
// The prediction ignores the rows: a system they hold at rest sees the half kick h qdd / 2 as a speed,
// an O(h^2) error in its statics (0.15% of the driven arm's sag at 1/60 s, 0.007% at 1 ms). Predicting
// with last step's row forces instead makes the statics exact but lets a stiff drive's transient feed
// the velocity terms, which diverges. The pose is the same, so the second pass reuses IA, U and D and
// recomputes only p0, u and pA: about a quarter more time.
//
// Incoming joint forces: with the step's effective acceleration qdd_eff = (qd_{n+1} - qd_n) / h (and
// the base's), f_i = I_i da_i + p0_i + sum_c f_c evaluated at the state the step started from. Its
// component S_i^T f_i is the joint's whole generalised force (applied, damping, drives, limits, friction,
// mimic); the rest is the constraint force the joint transmits. Torque is moved from O to the anchor.
#include "artic/artic.h"

#include "math/mathx.h"

#include <math.h>
#include <string.h>

// Momentum-rate of a rigid body (mass m, centre r relative to O, world inertia ic) for the spatial
// acceleration a: (Ic alpha + r x m a_c, m a_c) with a_c = a.v + alpha x r. I a in math/spatial.h's terms.
static inline sv6 rigid_accel_force(double mass, sn_vec3 r, const sym33* ic, sv6 a)
{
	sn_vec3 f = sn_scale(mass, sn_add(a.v, sn_cross(a.w, r)));
	return sv6_make(sn_add(sym33_mul(ic, a.w), sn_cross(r, f)), f);
}

// R D R^T for a diagonal D.
static inline sym33 rotate_diagonal(sn_mat33 r, const sym33* d)
{
	sn_vec3 t0 = sn_scale(d->xx, r.cx), t1 = sn_scale(d->yy, r.cy), t2 = sn_scale(d->zz, r.cz);
	sym33 o;
	o.xx = t0.x * r.cx.x + t1.x * r.cy.x + t2.x * r.cz.x;
	o.yy = t0.y * r.cx.y + t1.y * r.cy.y + t2.y * r.cz.y;
	o.zz = t0.z * r.cx.z + t1.z * r.cy.z + t2.z * r.cz.z;
	o.xy = t0.x * r.cx.y + t1.x * r.cy.y + t2.x * r.cz.y;
	o.xz = t0.x * r.cx.z + t1.x * r.cy.z + t2.x * r.cz.z;
	o.yz = t0.y * r.cx.z + t1.y * r.cy.z + t2.y * r.cz.z;
	return o;
}

// Motion subspace columns of link i's joint at its start-of-solve pose, about O.
static void joint_subspace(const artic* a, int i, sn_vec3 ra)
{
	const artic_link* l = a->links + i;
	const artic_kin* k = a->kin + i;
	artic_dof_work* dw = a->dw + l->dof;
	switch (l->type)
	{
		case SN_LINK_JOINT_REVOLUTE:
			dw[0].s = sv6_make(k->joint.cx, sn_cross(ra, k->joint.cx));
			break;
		case SN_LINK_JOINT_PRISMATIC:
			dw[0].s = sv6_make(sn_v3(0, 0, 0), k->joint.cx);
			break;
		case SN_LINK_JOINT_SPHERICAL:
		{
			sn_mat33 g = artic_parent_joint_axes(a, i);
			dw[0].s = sv6_make(g.cx, sn_cross(ra, g.cx));
			dw[1].s = sv6_make(g.cy, sn_cross(ra, g.cy));
			dw[2].s = sv6_make(g.cz, sn_cross(ra, g.cz));
			break;
		}
		default:
			break;
	}
}

// Three-dof joint: D = S^T U + diag(extra), its inverse by rows into dw[].dinv.
static void spherical_factor(artic_dof_work* dw, double extra)
{
	sn_mat33 d;
	d.cx = sn_v3(sv6_dot(dw[0].s, dw[0].u6), sv6_dot(dw[1].s, dw[0].u6), sv6_dot(dw[2].s, dw[0].u6));
	d.cy = sn_v3(d.cx.y, sv6_dot(dw[1].s, dw[1].u6), sv6_dot(dw[2].s, dw[1].u6));
	d.cz = sn_v3(d.cx.z, d.cy.z, sv6_dot(dw[2].s, dw[2].u6));
	d.cx.x += extra;
	d.cy.y += extra;
	d.cz.z += extra;
	sn_mat33 inv = mat33_inverse(d);
	const sn_vec3* col[3] = { &inv.cx, &inv.cy, &inv.cz };
	for (int c = 0; c < 3; ++c)
	{
		// Row r of the inverse, column c: the inverse is symmetric, so row r = column r.
		dw[c].dinv[0] = col[c]->x;
		dw[c].dinv[1] = col[c]->y;
		dw[c].dinv[2] = col[c]->z;
	}
}

// x = D^-1 t for a three-dof joint.
static inline void dinv3_mul(const artic_dof_work* dw, const double* t, double* x)
{
	for (int r = 0; r < 3; ++r)
	{
		x[r] = dw[r].dinv[0] * t[0] + dw[r].dinv[1] * t[1] + dw[r].dinv[2] * t[2];
	}
}

// IA_p += IA - U D^-1 U^T for a three-dof joint, and pA_p += pA + U D^-1 u.
static void spherical_inward(artic_work* parent, const artic_work* w, const artic_dof_work* dw)
{
	// UD_j = sum_k U_k Dinv_kj; the symmetric update is sum_j UD_j U_j^T.
	sv6 ud[3];
	for (int j = 0; j < 3; ++j)
	{
		ud[j] = sv6_zero();
		for (int k = 0; k < 3; ++k)
		{
			ud[j] = sv6_mul_add(ud[j], dw[k].dinv[j], dw[k].u6);
		}
	}
	ainertia* dst = &parent->m.ia;
	ainertia_add_to(dst, &w->m.ia);
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
	dinv3_mul(dw, u, x);
	sv6 pa = w->pa;
	for (int k = 0; k < 3; ++k)
	{
		pa = sv6_mul_add(pa, x[k], dw[k].u6);
	}
	parent->pa = sv6_add(parent->pa, pa);
}

// IA_p += IA - (1/D) U U^T for a one-dof joint (kd = U / D).
static inline void one_dof_inward(ainertia* restrict dst, const ainertia* restrict src, sv6 kd, sv6 u)
{
	dst->a.xx += src->a.xx - kd.w.x * u.w.x;
	dst->a.yy += src->a.yy - kd.w.y * u.w.y;
	dst->a.zz += src->a.zz - kd.w.z * u.w.z;
	dst->a.xy += src->a.xy - kd.w.x * u.w.y;
	dst->a.xz += src->a.xz - kd.w.x * u.w.z;
	dst->a.yz += src->a.yz - kd.w.y * u.w.z;
	dst->c.xx += src->c.xx - kd.v.x * u.v.x;
	dst->c.yy += src->c.yy - kd.v.y * u.v.y;
	dst->c.zz += src->c.zz - kd.v.z * u.v.z;
	dst->c.xy += src->c.xy - kd.v.x * u.v.y;
	dst->c.xz += src->c.xz - kd.v.x * u.v.z;
	dst->c.yz += src->c.yz - kd.v.y * u.v.z;
	// B -= kd_w u_v^T: column j gets kd_w * u_v[j].
	dst->b.cx = sn_add(dst->b.cx, sn_mul_add(src->b.cx, -u.v.x, kd.w));
	dst->b.cy = sn_add(dst->b.cy, sn_mul_add(src->b.cy, -u.v.y, kd.w));
	dst->b.cz = sn_add(dst->b.cz, sn_mul_add(src->b.cz, -u.v.z, kd.w));
}

// Pass 1a, outward: geometry about O (centres, inertias, motion subspaces, rigid spatial inertias).
static void geometry_pass(artic* a, sn_vec3 origin)
{
	for (int i = 0; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		const artic_kin* k = a->kin + i;
		artic_work* w = a->work + i;
		w->ra = sn_sub(k->anchor, origin);
		w->r = sn_add(w->ra, sn_mat33_mul_v(k->joint, l->com_j));
		w->ic = l->diag_inertia ? rotate_diagonal(k->joint, &l->inertia_j) : sym33_rotate(k->joint, &l->inertia_j);
		if (i > 0 || !a->fixed_base)
		{
			ainertia_from_rigid(&w->m.ia, l->mass, w->r, &w->ic);
		}
		if (i > 0)
		{
			joint_subspace(a, i, w->ra);
		}
	}
}

// Pass 1b, outward: velocities (joint speeds qv, base velocity base_v), bias accelerations and forces,
// and each joint's generalised force tau into u (damping from the state's own speeds).
static void bias_pass(artic* a, sn_vec3 origin, sv6 minus_g, const double* qv, sv6 base_v)
{
	const bool inputs = a->has_inputs;
	for (int i = 0; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		if (i == 0)
		{
			w->v = base_v;
			w->a = minus_g;
		}
		else
		{
			const artic_work* p = a->work + l->parent;
			artic_dof_work* dw = a->dw + l->dof;
			sv6 vj = sv6_zero();
			for (int d = 0; d < l->dof_count; ++d)
			{
				vj = sv6_mul_add(vj, qv[l->dof + d], dw[d].s);
				dw[d].u = -l->joint_damping * a->qd[l->dof + d]; // tau for now; pass 2 subtracts S^T pA
				if (inputs)
				{
					dw[d].u += a->joint_force[l->dof + d];
				}
			}
			w->v = sv6_add(p->v, vj);
			w->a = sv6_add(p->a, sv6_cross_motion(p->v, vj));
		}
		// Bias force by Newton-Euler at the centre of mass (file header).
		sn_vec3 om = w->v.w, al = w->a.w;
		sn_vec3 vc = sn_add(w->v.v, sn_cross(om, w->r));
		sn_vec3 fc = sn_scale(l->mass, sn_add(sn_add(w->a.v, sn_cross(al, w->r)), sn_cross(om, vc)));
		sn_vec3 nc = sn_add(sym33_mul(&w->ic, al), sn_cross(om, sym33_mul(&w->ic, om)));
		w->p0 = sv6_make(sn_add(nc, sn_cross(w->r, fc)), fc);
		if (inputs)
		{
			const sv6 fext = a->link_force[i];
			w->p0.w = sn_sub(w->p0.w, sn_sub(fext.w, sn_cross(origin, fext.v)));
			w->p0.v = sn_sub(w->p0.v, fext.v);
		}
		w->pa = w->p0;
	}
}

// Pass 2, inward: articulated inertias and bias forces (factor = true), or the bias forces alone
// with the factors of an earlier pass at the same pose (factor = false).
static void articulated_pass(artic* a, double h, bool factor)
{
	for (int i = a->link_count - 1; i > 0; --i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		artic_work* p = a->work + l->parent;
		artic_dof_work* dw = a->dw + l->dof;
		// A fixed base needs no articulated inertia: nothing moves it.
		const bool into_parent = l->parent > 0 || !a->fixed_base;
		if (l->dof_count == 1)
		{
			if (factor)
			{
				dw->u6 = ainertia_mul(&w->m.ia, dw->s);
				dw->dinv[0] = 1.0 / (sv6_dot(dw->s, dw->u6) + l->armature + h * l->joint_damping);
			}
			dw->u -= sv6_dot(dw->s, w->pa);
			if (into_parent)
			{
				sv6 kd = sv6_scale(dw->dinv[0], dw->u6);
				if (factor)
				{
					one_dof_inward(&p->m.ia, &w->m.ia, kd, dw->u6);
				}
				p->pa = sv6_add(p->pa, sv6_mul_add(w->pa, dw->u, kd));
			}
		}
		else if (l->dof_count == 3)
		{
			for (int d = 0; d < 3; ++d)
			{
				if (factor)
				{
					dw[d].u6 = ainertia_mul(&w->m.ia, dw[d].s);
				}
				dw[d].u -= sv6_dot(dw[d].s, w->pa);
			}
			if (factor)
			{
				spherical_factor(dw, l->armature + h * l->joint_damping);
			}
			if (into_parent)
			{
				if (factor)
				{
					spherical_inward(p, w, dw);
				}
				else
				{
					double u[3] = { dw[0].u, dw[1].u, dw[2].u }, x[3];
					dinv3_mul(dw, u, x);
					sv6 pa = w->pa;
					for (int k = 0; k < 3; ++k)
					{
						pa = sv6_mul_add(pa, x[k], dw[k].u6);
					}
					p->pa = sv6_add(p->pa, pa);
				}
			}
		}
		else if (into_parent)
		{
			if (factor)
			{
				ainertia_add_to(&p->m.ia, &w->m.ia);
			}
			p->pa = sv6_add(p->pa, w->pa);
		}
	}
	artic_work* base = a->work;
	if (a->fixed_base)
	{
		base->a = sv6_zero();
		return;
	}
	if (factor)
	{
		double dense[36];
		ainertia_to_dense(&base->m.ia, dense);
		if (!ldlt_factor(dense, 6, a->base_l, a->base_dinv))
		{
			memset(a->base_l, 0, sizeof(a->base_l));
			memset(a->base_dinv, 0, sizeof(a->base_dinv));
		}
	}
	base->a = artic_base_response(a, base->pa);
}

// Pass 3, outward: joint accelerations and the free-motion kick qd* = qd + h qdd into qd_free.
static void acceleration_pass(artic* a, double h)
{
	for (int i = 1; i < a->link_count; ++i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		const sv6 dap = a->work[l->parent].a;
		artic_dof_work* dw = a->dw + l->dof;
		w->a = dap;
		if (l->dof_count == 1)
		{
			double qdd = dw->dinv[0] * (dw->u - sv6_dot(dw->u6, dap));
			w->a = sv6_mul_add(w->a, qdd, dw->s);
			a->qd_free[l->dof] = a->qd[l->dof] + h * qdd;
		}
		else if (l->dof_count == 3)
		{
			double t[3], x[3];
			for (int d = 0; d < 3; ++d)
			{
				t[d] = dw[d].u - sv6_dot(dw[d].u6, dap);
			}
			dinv3_mul(dw, t, x);
			for (int d = 0; d < 3; ++d)
			{
				w->a = sv6_mul_add(w->a, x[d], dw[d].s);
				a->qd_free[l->dof + d] = a->qd[l->dof + d] + h * x[d];
			}
		}
	}
}

// The free-motion kick of the base: it is integrated as the motion of its origin (O at the start), whose
// classical acceleration is the spatial one plus w x v (the spatial acceleration describes whichever
// body point is at O; the origin moves on). A free body's centre then gains exactly g h per step,
// however it spins. terms: the base velocity the bias forces were evaluated with.
static void base_kick(artic* a, double h, sv6 terms)
{
	a->base_coriolis = sn_cross(terms.w, terms.v);
	sv6 accel = a->work[0].a;
	accel.v = sn_add(accel.v, a->base_coriolis);
	a->base_v_free = sv6_mul_add(a->base_v_start, h, accel);
}

void artic_forward(artic* a, sn_vec3 gravity, double h)
{
	const sn_vec3 origin = a->base_pose.p;
	a->origin = origin;
	const sv6 minus_g = sv6_make(sn_v3(0, 0, 0), sn_scale(-a->gravity_scale, gravity));
	a->base_v_start = a->fixed_base ? sv6_zero() : sv6_make(a->base_w, a->base_v);
	geometry_pass(a, origin);
	bias_pass(a, origin, minus_g, a->qd, a->base_v_start);
	articulated_pass(a, h, true);
	acceleration_pass(a, h);
	base_kick(a, h, a->base_v_start);
}

void artic_forward_midpoint(artic* a, sn_vec3 gravity, double h)
{
	// Velocity terms at the midpoint of the start speeds and the free kick's end speeds in qd_free (and
	// base_v_free): same pose, so the articulated inertias and the joints' D are kept; only the bias
	// forces are recomputed and pushed through.
	const sv6 minus_g = sv6_make(sn_v3(0, 0, 0), sn_scale(-a->gravity_scale, gravity));
	double* mid = a->qd_free;
	for (int d = 0; d < a->dof_count; ++d)
	{
		mid[d] = 0.5 * (a->qd[d] + mid[d]);
	}
	sv6 base_mid = sv6_scale(0.5, sv6_add(a->base_v_start, a->base_v_free));
	bias_pass(a, a->origin, minus_g, mid, base_mid);
	articulated_pass(a, h, false);
	acceleration_pass(a, h);
	base_kick(a, h, base_mid);
}

sv6 artic_base_response(const artic* a, sv6 z)
{
	double b[6] = { z.w.x, z.w.y, z.w.z, z.v.x, z.v.y, z.v.z }, x[6];
	ldlt_solve(a->base_l, a->base_dinv, 6, b, x);
	return sv6_make(sn_v3(-x[0], -x[1], -x[2]), sn_v3(-x[3], -x[4], -x[5]));
}

void artic_impulse_response(artic* a, int rhs_count, sv6* base_out)
{
	const int n = a->link_count;
	for (int i = 0; i < n; ++i)
	{
		a->work[i].m.z[0] = sv6_zero();
		a->work[i].m.z[1] = sv6_zero();
	}
	// Inward: u = y - S^T z is kept in y; the parent receives z + U D^-1 u.
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		artic_work* p = a->work + l->parent;
		artic_dof_work* dw = a->dw + l->dof;
		for (int r = 0; r < rhs_count; ++r)
		{
			sv6 z = w->m.z[r];
			if (l->dof_count == 1)
			{
				dw->y[r] -= sv6_dot(dw->s, z);
				z = sv6_mul_add(z, dw->dinv[0] * dw->y[r], dw->u6);
			}
			else if (l->dof_count == 3)
			{
				double u[3], x[3];
				for (int d = 0; d < 3; ++d)
				{
					dw[d].y[r] -= sv6_dot(dw[d].s, z);
					u[d] = dw[d].y[r];
				}
				dinv3_mul(dw, u, x);
				for (int d = 0; d < 3; ++d)
				{
					z = sv6_mul_add(z, x[d], dw[d].u6);
				}
			}
			p->m.z[r] = sv6_add(p->m.z[r], z);
		}
	}
	// The base, then outward: z now holds each link's velocity change.
	for (int r = 0; r < rhs_count; ++r)
	{
		// A spatial impulse f on the base itself (contacts on the links, artic/solve.c) enters as -f.
		sv6 z0 = a->work[0].m.z[r];
		if (r < 2)
		{
			z0 = sv6_sub(z0, a->base_impulse[r]);
		}
		sv6 dv0 = a->fixed_base ? sv6_zero() : artic_base_response(a, z0);
		a->work[0].m.z[r] = dv0;
		base_out[r] = dv0;
	}
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		artic_dof_work* dw = a->dw + l->dof;
		for (int r = 0; r < rhs_count; ++r)
		{
			sv6 dvp = a->work[l->parent].m.z[r];
			sv6 dv = dvp;
			if (l->dof_count == 1)
			{
				double x = dw->dinv[0] * (dw->y[r] - sv6_dot(dw->u6, dvp));
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
				dinv3_mul(dw, t, x);
				for (int d = 0; d < 3; ++d)
				{
					dw[d].y[r] = x[d];
					dv = sv6_mul_add(dv, x[d], dw[d].s);
				}
			}
			w->m.z[r] = dv;
		}
	}
}

// Running maximum of speeds that keeps a NaN once one is seen (so divergence is not missed).
static inline double max_or_nan(double m, double s)
{
	s = fabs(s);
	return (s > m || s != s) ? s : m;
}

// A dof's new speed and position change: the free motion plus the rows' effect, clamped.
static inline double dof_update(artic* a, int d, double h, double vmax, bool have_rows, double* dq_out)
{
	const artic_dof_work* dw = a->dw + d;
	double qd = a->qd_free[d];
	double dq = h * qd;
	if (have_rows)
	{
		qd += dw->y[0];
		dq += dw->y[1];
	}
	if (fabs(qd) > vmax)
	{
		qd = copysign(vmax, qd);
	}
	if (fabs(dq) > vmax * h)
	{
		dq = copysign(vmax * h, dq);
	}
	*dq_out = dq;
	return qd;
}

void artic_finish(artic* a, double h, bool have_rows)
{
	const int n = a->link_count;
	const double inv_h = 1.0 / h;
	sv6 base[2] = { sv6_zero(), sv6_zero() };
	if (have_rows)
	{
		artic_impulse_response(a, 2, base);
		a->base_impulse[0] = sv6_zero();
		a->base_impulse[1] = sv6_zero();
	}

	// The base: new velocity and pose; its effective acceleration starts the outward pass.
	double max_speed = 0.0;
	artic_work* w0 = a->work;
	if (a->fixed_base)
	{
		w0->a = sv6_zero();
	}
	else
	{
		sv6 v = sv6_add(a->base_v_free, base[0]);
		sv6 dx = sv6_mul_add(base[1], h, a->base_v_free);
		// v and dx describe the base origin (artic_forward); row impulses act at once, so they add to the
		// origin's velocity as they are. The effective spatial acceleration (for the joint forces) takes
		// the w x v back out.
		w0->a = sv6_scale(inv_h, sv6_sub(v, a->base_v_start));
		w0->a.v = sn_sub(w0->a.v, a->base_coriolis);
		a->base_pose.p = sn_add(a->base_pose.p, dx.v);
		a->base_pose.q = sn_quat_normalize(sn_quat_mul(quat_exp(dx.w), a->base_pose.q));
		a->base_w = v.w;
		a->base_v = v.v;
		a->kin[0].joint = sn_mat33_from_quat(a->base_pose.q);
		a->kin[0].anchor = a->base_pose.p;
		double sw = sn_length(a->base_w), sv = sn_length(a->base_v);
		max_speed = max_or_nan(max_or_nan(0.0, sw), sv);
	}
	w0->pa = sv6_add(w0->p0, rigid_accel_force(a->links[0].mass, w0->r, &w0->ic, w0->a));

	// Outward: speeds, positions and kinematics; each link's own share of its joint force,
	// p0 + I da with the effective acceleration, goes into pa.
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = a->links + i;
		artic_work* w = a->work + i;
		artic_dof_work* dw = a->dw + l->dof;
		w->a = a->work[l->parent].a;
		if (l->dof_count == 1)
		{
			double dq;
			double qd = dof_update(a, l->dof, h, l->max_joint_velocity, have_rows, &dq);
			w->a = sv6_mul_add(w->a, (qd - a->qd[l->dof]) * inv_h, dw->s);
			a->qd[l->dof] = qd;
			a->q[l->dof] += dq;
			max_speed = max_or_nan(max_speed, qd);
		}
		else if (l->dof_count == 3)
		{
			double rot[3];
			for (int d = 0; d < 3; ++d)
			{
				double qd = dof_update(a, l->dof + d, h, l->max_joint_velocity, have_rows, rot + d);
				w->a = sv6_mul_add(w->a, (qd - a->qd[l->dof + d]) * inv_h, dw[d].s);
				a->qd[l->dof + d] = qd;
				max_speed = max_or_nan(max_speed, qd);
			}
			a->sph[i] = sn_quat_normalize(sn_quat_mul(quat_exp(sn_v3(rot[0], rot[1], rot[2])), a->sph[i]));
			sn_vec3 rv = quat_log(a->sph[i]);
			a->q[l->dof] = rv.x;
			a->q[l->dof + 1] = rv.y;
			a->q[l->dof + 2] = rv.z;
		}
		w->pa = sv6_add(w->p0, rigid_accel_force(l->mass, w->r, &w->ic, w->a));
		artic_link_kinematics(a, i);
	}

	// Inward: add the children's joint forces; store each link's as impulse about its anchor.
	const bool first = a->first_substep;
	for (int i = n - 1; i >= 0; --i)
	{
		artic_work* w = a->work + i;
		if (i > 0)
		{
			artic_work* p = a->work + a->links[i].parent;
			p->pa = sv6_add(p->pa, w->pa);
		}
		sv6 f = w->pa;
		sv6 at_anchor = sv6_make(sn_sub(f.w, sn_cross(w->ra, f.v)), f.v);
		if (i == 0 && !a->fixed_base)
		{
			at_anchor = sv6_zero(); // a floating base has no inbound joint
		}
		a->incoming[i] = first ? sv6_scale(h, at_anchor) : sv6_mul_add(a->incoming[i], h, at_anchor);
	}
	a->first_substep = false;
	a->max_speed = max_speed;
}
