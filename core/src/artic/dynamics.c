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
// 1 ms). Evaluating them at the midpoint speeds qd + h qdd / 2 removes the growth. The acceleration that
// predicts the midpoint comes from the last two solves' free accelerations, kept with the state (qdd_free,
// qdd_prev), extrapolated: qdd_pred = 2 qdd_last - qdd_prev. A solve then takes one ABA, at the
// predicted midpoint. The extrapolation misses this solve's qdd by O(h^2) (the last solve's alone, by
// O(h)), so the predicted midpoint misses the solve's own by O(h^3). On the gyroscopic test equation
// qd' = i w qd (the velocity terms' own rotation, which the exact midpoint conserves), with e = h w, the
// extrapolated prediction multiplies |qd|^2 by 1 - e^4 per step (its other roots decay): it dissipates,
// where the last solve alone amplifies by 1 + e^4/2 and a first ABA at the start speeds (two passes per
// solve) by 1 + e^4/4. On the real axis, qd' = -l qd, it is stable for h l < 1/2 (the last solve alone:
// 1; two passes: 2), and the jerk a whip's tip reaches makes any prediction poor. So each solve checks
// its prediction: its own kick gives the midpoint qd + h qdd_new / 2, which the prediction missed by
// h |qdd_new - qdd_pred| / 2. Where that exceeds MIDPOINT_MISS_RATE h times the largest speed of a joint
// or the base, at the start or at the predicted midpoint (the terms are taken at the latter: a robot
// resting on its stops has start speeds of round-off but midpoint speeds of half a free kick, and
// measured against the start speeds alone every step of the Allegro hand at rest missed), a second pass
// at the same pose (IA, U and D kept, only p0, u and pA recomputed) takes the terms at the solve's own
// midpoint, and the next solve predicts from that one alone: a miss is no trend. No trend runs through
// a solve whose rows or contacts acted either: their impulses change the speeds at once, and the free
// accelerations with them, so the next two solves predict from the last one alone (a joint stopped at
// its limit by one step's impulse would otherwise see the stop extrapolated over the next steps).
// Articulations held by drives or limits therefore predict from the last solve alone, every step.
// The bound scales with h because the energy error a miss causes per unit time scales with miss / h.
// What the extrapolation buys is cost, not energy. Measured at 2/s, with the last solve alone and with
// the extrapolation (both with the check against midpoint speeds): the check fires in 2.7% and 0.3% of
// the steps of the 10-link chain of bench_articulation, 19% and 0.9% of the 50-link one's, 90% and 10%
// of the 200-link one's (its 5 s). The energy of a whip (bench_articulation --only
// whip: a 50-link chain of thin 0.1 m links released at eight angles, the largest gain in 10 s as a share
// of the potential drop) is chaotic, and moves with any change in when the check fires: up to 16% and
// 14% at 0.2 ms, 47% and 56% at 1 ms (the build before both changes: 47% and 77%). The 50-link chain of
// 0.5 m links of test_long_chain_energy: 299 J and 577 J in 10 s (two passes every solve: 616 J), a
// larger excursion within the same bound. The 200-link chain released within 0.2 rad of horizontal:
// 0.13% to 0.40% over 10 s, and over 30 s it diverges after 13.9 s from two of six angles, as in the
// build before. The check fires in 0 to 77% of the thin whip's steps, and in at most 0.2% of the
// published robots' (bench_robots, free motion at 0.1 ms; the Allegro hand, at rest on its stops, in
// every step before the midpoint speeds counted). Without the check the 50-link chain of 0.5 m links,
// predicted from the last solve alone, diverges after 6.9 s at 1 ms. Where there is no last solve (a new
// articulation, after its state was set, after sleep) the first ABA is at the start speeds and the second
// at the midpoint of its kick, (qd + qd*) / 2; the solve after it predicts from it alone.
// Every prediction ignores the rows: a system they hold at rest sees the half kick h qdd / 2 as a
// speed, an O(h^2) error in its statics (0.15% of the driven arm's sag at 1/60 s, 0.007% at 1 ms).
// Predicting with last step's row forces instead makes the statics exact but lets a stiff drive's
// transient feed the velocity terms, which diverges: the kept qdd is the free one, without the rows.
// A force applied for one step misses two predictions (that step's, which does not know it, and the
// next one's, which still has it), as does a change of gravity: an O(h) error in the midpoint for a
// step, as at the start speeds, which the check catches when it matters.
//
// Incoming joint forces: with the step's effective acceleration qdd_eff = (qd_{n+1} - qd_n) / h (and
// the base's), f_i = I_i da_i + p0_i + sum_c f_c evaluated at the state the step started from. Its
// component S_i^T f_i is the joint's whole generalised force (applied, damping, drives, limits, friction,
// mimic); the rest is the constraint force the joint transmits. Torque is moved from O to the anchor.
// They are computed when first read after a step (as MuJoCo leaves cfrc_int to mj_rnePostConstraint),
// from the work arrays the step leaves behind, or before the next solve overwrites them if it is a later
// substep of the same step: a step whose joint forces nobody reads does not pay for them.
#include "artic/artic.h"

#include "math/mathx.h"

#include <math.h>
#include <string.h>

static void incoming_compute(artic* a);

// A predicted midpoint that misses this solve's own by more than this rate times the solve's length times
// the largest start or midpoint speed of a joint or the base is corrected (file header), 1/s.
#define MIDPOINT_MISS_RATE 2.0

// The larger of a running maximum m and x, keeping m where x is NaN, as fmax(m, x) does but without the
// call: these run once per dof and step.
static inline double max_of(double m, double x)
{
	return x > m ? x : m;
}

static inline double sv6_max_abs(sv6 x)
{
	double m = max_of(0.0, fabs(x.w.x));
	m = max_of(m, fabs(x.w.y));
	m = max_of(m, fabs(x.w.z));
	m = max_of(m, fabs(x.v.x));
	m = max_of(m, fabs(x.v.y));
	return max_of(m, fabs(x.v.z));
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

// IA_p += IA - U D^-1 U^T for a three-dof joint (dst: IA_p, ia: IA), and pA_p += pA + U D^-1 u.
static void spherical_inward(artic_work* parent, const artic_work* w, ainertia* dst, const ainertia* ia,
							 const artic_dof_work* dw)
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
	ainertia_add_to(dst, ia);
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

// Geometry of one link about O (centre, inertia, motion subspace, rigid spatial inertia).
static void link_geometry(artic* a, int i, sn_vec3 origin)
{
	const artic_link* l = a->links + i;
	const artic_kin* k = a->kin + i;
	artic_work* w = a->work + i;
	w->ra = sn_sub(k->anchor, origin);
	w->r = sn_add(w->ra, sn_mat33_mul_v(k->joint, l->com_j));
	w->ic = l->diag_inertia ? rotate_diagonal(k->joint, &l->inertia_j) : sym33_rotate(k->joint, &l->inertia_j);
	if (i > 0 || !a->fixed_base)
	{
		ainertia_from_rigid(&a->temp[i].m.ia, l->mass, w->r, &w->ic);
	}
	if (i > 0)
	{
		joint_subspace(a, i, w->ra);
	}
}

// The same for two links i, j > 0 whose inertias are both diagonal or both not, side by side in the two
// lanes (math/lanes.h): each lane computes what link_geometry computes for its link. j may be i.
static void link_geometry_x2(artic* a, int i, int j, sn_vec3 origin)
{
	const artic_link* li = a->links + i;
	const artic_link* lj = a->links + j;
	const artic_kin* ki = a->kin + i;
	const artic_kin* kj = a->kin + j;
	artic_work* wi = a->work + i;
	artic_work* wj = a->work + j;
	const mat33x2 joint = mat33x2_pair(&ki->joint, &kj->joint);
	const vec3x2 ra = vec3x2_sub(vec3x2_pair(ki->anchor, kj->anchor), vec3x2_splat(origin));
	const vec3x2 r = vec3x2_add(ra, mat33x2_mul_v(&joint, vec3x2_pair(li->com_j, lj->com_j)));
	sym33x2 ic;
	if (li->diag_inertia)
	{
		ic = sym33x2_rotate_diagonal(&joint, lane2_pair(li->inertia_j.xx, lj->inertia_j.xx),
									 lane2_pair(li->inertia_j.yy, lj->inertia_j.yy),
									 lane2_pair(li->inertia_j.zz, lj->inertia_j.zz));
	}
	else
	{
		const sym33x2 ij = sym33x2_pair(&li->inertia_j, &lj->inertia_j);
		ic = sym33x2_rotate(&joint, &ij);
	}
	// ainertia_from_rigid (math/spatial.h), lane by lane.
	const lane2 mass = lane2_pair(li->mass, lj->mass), neg = -mass;
	const lane2 r2 = r.x * r.x + r.y * r.y + r.z * r.z;
	const lane2 axx = ic.xx + mass * (r2 - r.x * r.x), ayy = ic.yy + mass * (r2 - r.y * r.y);
	const lane2 azz = ic.zz + mass * (r2 - r.z * r.z);
	const lane2 axy = ic.xy - mass * r.x * r.y, axz = ic.xz - mass * r.x * r.z, ayz = ic.yz - mass * r.y * r.z;
	const lane2 mx = mass * r.x, my = mass * r.y, mz = mass * r.z;
	const lane2 nx = neg * r.x, ny = neg * r.y, nz = neg * r.z;
	artic_work* ws[2] = { wj, wi };
	ainertia* ias[2] = { &a->temp[j].m.ia, &a->temp[i].m.ia };
	for (int t = 0; t < 2; ++t)
	{
		// Lane 1 (link j) first, so that link i's values stand when j is i.
		const int q = 1 - t;
		artic_work* w = ws[t];
		w->ra = vec3x2_lane(ra, q);
		w->r = vec3x2_lane(r, q);
		w->ic = (sym33){ ic.xx[q], ic.yy[q], ic.zz[q], ic.xy[q], ic.xz[q], ic.yz[q] };
		ainertia* ia = ias[t];
		ia->a = (sym33){ axx[q], ayy[q], azz[q], axy[q], axz[q], ayz[q] };
		ia->b.cx = sn_v3(0.0, mz[q], ny[q]);
		ia->b.cy = sn_v3(nz[q], 0.0, mx[q]);
		ia->b.cz = sn_v3(my[q], nx[q], 0.0);
		ia->c = (sym33){ mass[q], mass[q], mass[q], 0.0, 0.0, 0.0 };
	}
	joint_subspace(a, j, wj->ra);
	joint_subspace(a, i, wi->ra);
}

// Pass 1a, outward: geometry about O (centres, inertias, motion subspaces, rigid spatial inertias).
static void geometry_pass(artic* a, sn_vec3 origin)
{
	const int n = a->link_count;
	link_geometry(a, 0, origin);
	for (int i = 1; i < n; i += 2)
	{
		const int j = i + 1 < n ? i + 1 : i;
		if (a->links[i].diag_inertia == a->links[j].diag_inertia)
		{
			link_geometry_x2(a, i, j, origin);
		}
		else
		{
			link_geometry(a, i, origin);
			link_geometry(a, j, origin);
		}
	}
}

// Bias forces p0 of two links (file header: Newton-Euler at the centre of mass), side by side in the two
// lanes (math/lanes.h), from their velocities, bias accelerations, centres and inertias; into p0 and pa.
// w0 and w1 may be the same link.
static void bias_forces_x2(artic_work* w0, artic_work* w1, const sv6* v0, const sv6* v1, double mass0, double mass1)
{
	const vec3x2 om = vec3x2_pair(v0->w, v1->w), al = vec3x2_pair(w0->a.w, w1->a.w);
	const vec3x2 r = vec3x2_pair(w0->r, w1->r);
	const sym33x2 ic = sym33x2_pair(&w0->ic, &w1->ic);
	const vec3x2 vc = vec3x2_add(vec3x2_pair(v0->v, v1->v), vec3x2_cross(om, r));
	const vec3x2 av = vec3x2_pair(w0->a.v, w1->a.v);
	const vec3x2 fc =
		vec3x2_scale(lane2_pair(mass0, mass1), vec3x2_add(vec3x2_add(av, vec3x2_cross(al, r)), vec3x2_cross(om, vc)));
	const vec3x2 nc = vec3x2_add(sym33x2_mul(&ic, al), vec3x2_cross(om, sym33x2_mul(&ic, om)));
	const vec3x2 nw = vec3x2_add(nc, vec3x2_cross(r, fc));
	w1->p0 = sv6_make(vec3x2_lane(nw, 1), vec3x2_lane(fc, 1));
	w0->p0 = sv6_make(vec3x2_lane(nw, 0), vec3x2_lane(fc, 0));
	w1->pa = w1->p0;
	w0->pa = w0->p0;
}

// Pass 1b, outward: velocities (joint speeds qv, base velocity base_v), bias accelerations and forces,
// and each joint's generalised force tau into u (damping from the state's own speeds).
static void bias_pass(artic* a, sn_vec3 origin, sv6 minus_g, const double* restrict qv, sv6 base_v)
{
	const bool inputs = a->has_inputs;
	const artic_link* restrict links = a->links;
	artic_work* restrict work = a->work;
	artic_link_temp* restrict temp = a->temp;
	artic_dof_work* restrict dws = a->dw;
	const double* restrict qd = a->qd;
	const int n = a->link_count;
	temp[0].v = base_v;
	work[0].a = minus_g;
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = links + i;
		artic_work* w = work + i;
		const artic_work* p = work + l->parent;
		artic_dof_work* dw = dws + l->dof;
		sv6 vj = sv6_zero();
		for (int d = 0; d < l->dof_count; ++d)
		{
			vj = sv6_mul_add(vj, qv[l->dof + d], dw[d].s);
			double u = -l->joint_damping * qd[l->dof + d]; // tau for now; pass 2 subtracts S^T pA
			if (inputs)
			{
				u += a->joint_force[l->dof + d];
			}
			dw[d].u = u;
		}
		const sv6 pv = temp[l->parent].v;
		temp[i].v = sv6_add(pv, vj);
		w->a = sv6_add(p->a, sv6_cross_motion(pv, vj));
	}
	// The bias forces depend on each link's own motion only: two links at a time.
	for (int i = 0; i < n; i += 2)
	{
		const int j = i + 1 < n ? i + 1 : i;
		bias_forces_x2(work + i, work + j, &temp[i].v, &temp[j].v, links[i].mass, links[j].mass);
	}
	if (inputs)
	{
		for (int i = 0; i < n; ++i)
		{
			artic_work* w = work + i;
			const sv6 fext = a->link_force[i];
			w->p0.w = sn_sub(w->p0.w, sn_sub(fext.w, sn_cross(origin, fext.v)));
			w->p0.v = sn_sub(w->p0.v, fext.v);
			w->pa = w->p0;
		}
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
		ainertia* ia = &a->temp[i].m.ia;
		ainertia* pia = &a->temp[l->parent].m.ia;
		artic_dof_work* dw = a->dw + l->dof;
		// A fixed base needs no articulated inertia: nothing moves it.
		const bool into_parent = l->parent > 0 || !a->fixed_base;
		if (l->dof_count == 1)
		{
			if (factor)
			{
				dw->u6 = ainertia_mul(ia, dw->s);
				dw->dinv[0] = 1.0 / (sv6_dot(dw->s, dw->u6) + l->armature + h * l->joint_damping);
			}
			dw->u -= sv6_dot(dw->s, w->pa);
			if (into_parent)
			{
				sv6 kd = sv6_scale(dw->dinv[0], dw->u6);
				if (factor)
				{
					one_dof_inward(pia, ia, kd, dw->u6);
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
					dw[d].u6 = ainertia_mul(ia, dw[d].s);
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
					spherical_inward(p, w, pia, ia, dw);
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
				ainertia_add_to(pia, ia);
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
		ainertia_to_dense(&a->temp[0].m.ia, dense);
		if (!ldlt_factor(dense, 6, a->base_l, a->base_dinv))
		{
			memset(a->base_l, 0, sizeof(a->base_l));
			memset(a->base_dinv, 0, sizeof(a->base_dinv));
		}
	}
	base->a = artic_base_response(a, base->pa);
}

// Pass 3, outward: joint accelerations and the free-motion kick qd* = qd + h qdd into qd_free (and, when
// keep, the accelerations into qdd_free for the next solve's midpoint prediction; it returns the largest
// change of one, else 0).
static double acceleration_pass(artic* a, double h, bool keep)
{
	double change = 0.0;
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
			if (keep)
			{
				change = max_of(change, fabs(qdd - a->qdd_free[l->dof]));
				a->qdd_free[l->dof] = qdd;
			}
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
				if (keep)
				{
					change = max_of(change, fabs(x[d] - a->qdd_free[l->dof + d]));
					a->qdd_free[l->dof + d] = x[d];
				}
			}
		}
	}
	return change;
}

// The free-motion kick of the base: it is integrated as the motion of its origin (O at the start), whose
// classical acceleration is the spatial one plus w x v (the spatial acceleration describes whichever
// body point is at O; the origin moves on). A free body's centre then gains exactly g h per step,
// however it spins. terms: the base velocity the bias forces were evaluated with. keep: as
// acceleration_pass, returning the largest change of a component.
static double base_kick(artic* a, double h, sv6 terms, bool keep)
{
	a->base_coriolis = sn_cross(terms.w, terms.v);
	sv6 accel = a->work[0].a;
	accel.v = sn_add(accel.v, a->base_coriolis);
	a->base_v_free = sv6_mul_add(a->base_v_start, h, accel);
	if (!keep || a->fixed_base)
	{
		return 0.0;
	}
	const sv6 change = sv6_sub(accel, a->base_a_free);
	a->base_a_free = accel;
	return sv6_max_abs(change);
}

// Passes 1b to 3 at the pose of pass 1a, with the velocity terms at the joint speeds qv and the base
// velocity base_v (factor: as articulated_pass; keep: as acceleration_pass, returning the largest change
// of a kept acceleration).
static double forward_at(artic* a, double h, sv6 minus_g, const double* qv, sv6 base_v, bool factor, bool keep)
{
	bias_pass(a, a->origin, minus_g, qv, base_v);
	articulated_pass(a, h, factor);
	const double change = acceleration_pass(a, h, keep);
	return max_of(change, base_kick(a, h, base_v, keep));
}

// Pass 1a and the solve's start: origin, base velocity, the last solve's pending joint forces.
static sv6 forward_begin(artic* a, sn_vec3 gravity)
{
	// The work arrays are about to be overwritten: a later substep of the same step still owes the last
	// solve's joint forces (they add up over the step); a new step replaces them.
	if (a->incoming_pending)
	{
		if (!a->first_substep)
		{
			incoming_compute(a);
		}
		a->incoming_pending = false;
	}
	a->origin = a->base_pose.p;
	a->base_v_start = a->fixed_base ? sv6_zero() : sv6_make(a->base_w, a->base_v);
	geometry_pass(a, a->origin);
	return sv6_make(sn_v3(0, 0, 0), sn_scale(-a->gravity_scale, gravity));
}

// The second pass at the same pose (the articulated inertias and the joints' D kept; only p0, u and pA
// recomputed), with the velocity terms at the midpoint of the start speeds and the kick in qd_free.
static void own_midpoint_pass(artic* a, double h, sv6 minus_g)
{
	double* mid = a->qd_free;
	for (int d = 0; d < a->dof_count; ++d)
	{
		mid[d] = 0.5 * (a->qd[d] + mid[d]);
	}
	const sv6 base_mid = sv6_scale(0.5, sv6_add(a->base_v_start, a->base_v_free));
	forward_at(a, h, minus_g, mid, base_mid, false, true);
}

bool artic_forward(artic* a, sn_vec3 gravity, double h)
{
	const sv6 minus_g = forward_begin(a, gravity);
	if (!a->midpoint)
	{
		forward_at(a, h, minus_g, a->qd, a->base_v_start, true, false);
		return false;
	}
	if (a->free_history == ARTIC_FREE_NONE)
	{
		// No last solve to predict from: the kick at the start speeds predicts.
		forward_at(a, h, minus_g, a->qd, a->base_v_start, true, false);
		own_midpoint_pass(a, h, minus_g);
		a->free_history = ARTIC_FREE_ONE;
		return false;
	}
	// Predicted from the last two solves' free accelerations, extrapolated (file header), or from the
	// last one alone when it is the only one kept. The prediction goes into qdd_free, so that the pass
	// measures its miss against it while it writes its own accelerations there; the last solve's move to
	// qdd_prev. The midpoint speeds wait in qd_free until the kick overwrites them. One ABA, unless its
	// own accelerations show that the prediction missed the midpoint by more than MIDPOINT_MISS_RATE h
	// times the largest speed.
	const bool extrapolate = a->free_history == ARTIC_FREE_TWO;
	double* mid = a->qd_free;
	const double half_h = 0.5 * h;
	double speed = 0.0; // the largest start or predicted midpoint speed
	for (int d = 0; d < a->dof_count; ++d)
	{
		const double last = a->qdd_free[d];
		const double predicted = extrapolate ? 2.0 * last - a->qdd_prev[d] : last;
		a->qdd_prev[d] = last;
		a->qdd_free[d] = predicted;
		mid[d] = a->qd[d] + half_h * predicted;
		speed = max_of(max_of(speed, fabs(a->qd[d])), fabs(mid[d]));
	}
	const sv6 base_last = a->base_a_free;
	a->base_a_free = extrapolate ? sv6_sub(sv6_scale(2.0, base_last), a->base_a_prev) : base_last;
	a->base_a_prev = base_last;
	// This solve's accelerations continue a smooth stretch unless rows acted in the last solve.
	a->free_history = a->free_history == ARTIC_FREE_AFTER_ROWS ? ARTIC_FREE_ONE : ARTIC_FREE_TWO;
	const sv6 base_mid = sv6_mul_add(a->base_v_start, half_h, a->base_a_free);
	speed = max_of(max_of(speed, sv6_max_abs(a->base_v_start)), sv6_max_abs(base_mid)); // zero for a fixed base
	const double change = forward_at(a, h, minus_g, mid, base_mid, true, true);
	if (half_h * change > MIDPOINT_MISS_RATE * h * speed)
	{
		own_midpoint_pass(a, h, minus_g);
		a->free_history = ARTIC_FREE_ONE; // a miss is no trend: the next solve predicts from this one
		return true;
	}
	return false;
}

void artic_factor(artic* a, sn_vec3 gravity, double h)
{
	const sv6 minus_g = forward_begin(a, gravity);
	forward_at(a, h, minus_g, a->qd, a->base_v_start, true, false);
}

// -IA^-1 z for a floating base's LDL^T factor of IA: its velocity change for the articulated impulse z.
static sv6 base_solve(const double* base_l, const double* base_dinv, sv6 z)
{
	double b[6] = { z.w.x, z.w.y, z.w.z, z.v.x, z.v.y, z.v.z }, x[6];
	ldlt_solve(base_l, base_dinv, 6, b, x);
	return sv6_make(sn_v3(-x[0], -x[1], -x[2]), sn_v3(-x[3], -x[4], -x[5]));
}

sv6 artic_base_response(const artic* a, sv6 z)
{
	return base_solve(a->base_l, a->base_dinv, z);
}

// ---- the drive path (artic/solve.c): every dof driven, nothing else acting ------------------------------

bool artic_drive_factor(artic* a, double h, const double* extra, sv6* u6, double* dinv, double* base_l,
						double* base_dinv)
{
	// The articulated-body induction of articulated_pass, factor part only, with D_i + extra_i: the
	// factor of M + diag(extra), M the impulse passes' joint-space inertia (armature and h b included),
	// and for a floating base the LDL^T factor of its articulated inertia.
	const int n = a->link_count;
	for (int i = a->fixed_base ? 1 : 0; i < n; ++i)
	{
		const artic_work* w = a->work + i;
		ainertia_from_rigid(&a->temp[i].m.ia, a->links[i].mass, w->r, &w->ic);
	}
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = a->links + i;
		ainertia* ia = &a->temp[i].m.ia;
		ainertia* pia = &a->temp[l->parent].m.ia;
		const bool into_parent = l->parent > 0 || !a->fixed_base; // a fixed base needs no articulated inertia
		if (l->dof_count == 1)
		{
			const int d = l->dof;
			const sv6 s = a->dw[d].s;
			u6[d] = ainertia_mul(ia, s);
			dinv[d] = 1.0 / (sv6_dot(s, u6[d]) + l->armature + h * l->joint_damping + extra[d]);
			if (into_parent)
			{
				one_dof_inward(pia, ia, sv6_scale(dinv[d], u6[d]), u6[d]);
			}
		}
		else if (into_parent)
		{
			ainertia_add_to(pia, ia);
		}
	}
	if (a->fixed_base)
	{
		return true;
	}
	double dense[36];
	ainertia_to_dense(&a->temp[0].m.ia, dense);
	return ldlt_factor(dense, 6, base_l, base_dinv);
}

// One spatial vector as three pairs of doubles (w.x w.y | w.z v.x | v.y v.z): its six components lie in
// order in memory. The drive path's pass works on one right-hand side, so it pairs the components rather
// than two right-hand sides as the impulse passes do (its sums are therefore in another order than sv6's).
_Static_assert(sizeof(sv6) == 6 * sizeof(double), "sv6 is six doubles in a row");

typedef struct sv6p
{
	lane2 a, b, c;
} sv6p;

static inline sv6p sv6p_load(const sv6* v)
{
	const double* p = &v->w.x;
	return (sv6p){ lane2_load(p), lane2_load(p + 2), lane2_load(p + 4) };
}

static inline void sv6p_store(sv6* v, sv6p x)
{
	double* p = &v->w.x;
	lane2_store(p, x.a);
	lane2_store(p + 2, x.b);
	lane2_store(p + 4, x.c);
}

static inline double sv6p_dot(sv6p x, sv6p y)
{
	const lane2 t = x.a * y.a + x.b * y.b + x.c * y.c;
	return t[0] + t[1];
}

// x + s y
static inline sv6p sv6p_mul_add(sv6p x, double s, sv6p y)
{
	const lane2 k = lane2_splat(s);
	return (sv6p){ x.a + k * y.a, x.b + k * y.b, x.c + k * y.c };
}

static inline sv6p sv6p_add(sv6p x, sv6p y)
{
	return (sv6p){ x.a + y.a, x.b + y.b, x.c + y.c };
}

// The arrays of one drive window (artic_drive_window), per dof.
typedef struct drive_window_arrays
{
	const sv6* restrict u6;
	const artic_dof_work* restrict dw;
	const double* restrict dinv, * restrict fa, * restrict share, * restrict c0, * restrict cpos, * restrict ctp;
	const double* restrict dx, * restrict bound, * restrict top, * restrict v;
	double* restrict g, * restrict y;
	double time_left;
} drive_window_arrays;

// Inward, dof d: its right-hand side g, u = g - S^T z into y, and the articulated impulse z + U D^-1 u
// that its link passes to its parent.
static inline sv6p drive_window_in(const drive_window_arrays* w, int d, sv6p z)
{
	const double c = w->c0[d] - w->cpos[d] * w->dx[d] - w->ctp[d] * w->time_left;
	const double gd = (c - w->share[d]) - w->fa[d] * w->v[d];
	w->g[d] = gd;
	const double u = gd - sv6p_dot(sv6p_load(&w->dw[d].s), z);
	w->y[d] = u;
	return sv6p_mul_add(z, w->dinv[d] * u, sv6p_load(w->u6 + d));
}

// Outward, dof d: its speed change y from its parent's dv, the drive's impulse change into g and its
// bounds (false if crossed), and its link's dv.
static inline sv6p drive_window_out(const drive_window_arrays* w, int d, sv6p dv, bool* within)
{
	const double x = w->dinv[d] * (w->y[d] - sv6p_dot(sv6p_load(w->u6 + d), dv));
	w->y[d] = x;
	const double delta = w->g[d] - w->fa[d] * x;
	const double lambda = w->share[d] + delta, end = w->v[d] + x, top = w->top[d];
	// No branch per dof: a bound crossed (or a NaN) anywhere ends the window with nothing applied. The
	// speed bound is the drive's push beyond max_velocity: end > top where it pushes up, end < -top where
	// it pushes down, that is sign(lambda) end > top for lambda != 0 (the product by +-1 is exact).
	*within &= (fabs(lambda) <= w->bound[d]) & ((lambda == 0.0) | !(copysign(1.0, lambda) * end > top));
	w->g[d] = delta;
	return sv6p_mul_add(dv, x, sv6p_load(&w->dw[d].s));
}

bool artic_drive_window(artic* a, double time_left)
{
	// The impulse recursion of the file header with the factor of artic_drive_factor, one right-hand side,
	// with the drive window's own arithmetic (artic/solve.c, drive_path_window) folded into its two passes.
	// Inward, each dof's right-hand side g = C - share - a v (C = c - cpos dx - ctp time_left), then
	// z_p += z_i + U_i D_i^-1 (g_i - S_i^T z_i) (u = g - S^T z kept in y); the base moves by
	// dv_0 = -IA_0^-1 z_0 (floating) or not at all; outward y_i = D_i^-1 (u_i - U_i^T dv_p),
	// dv_i = dv_p + S_i y_i, and each drive's impulse change d = g - a y (Woodbury) with its bounds checked.
	// g ends holding d. In a chain (serial) z and dv run down and up the links in registers; in a tree
	// temp[].m.z[0] holds each link's z, then its dv.
	artic_rows* rs = &a->rows;
	const int n = a->link_count;
	const bool floating = !a->fixed_base;
	const drive_window_arrays w = {
		.u6 = rs->fast_u6,
		.dw = a->dw,
		.dinv = rs->fast_dinv,
		.fa = rs->fast_a,
		.share = rs->fast_share,
		.c0 = rs->fast_c,
		.cpos = rs->fast_cpos,
		.ctp = rs->fast_ctp,
		.dx = rs->dx,
		.bound = rs->fast_bound,
		.top = rs->fast_speed,
		.v = rs->v,
		.g = rs->fast_g,
		.y = rs->fast_y,
		.time_left = time_left,
	};
	const artic_link* restrict links = a->links;
	const sv6p zero = { lane2_splat(0.0), lane2_splat(0.0), lane2_splat(0.0) };
	bool within = true;
	if (a->serial)
	{
		sv6p z = zero;
		for (int i = n - 1; i > 0; --i)
		{
			if (links[i].dof_count == 1)
			{
				z = drive_window_in(&w, links[i].dof, z);
			}
		}
		sv6p dv = zero;
		if (floating)
		{
			sv6 z0;
			sv6p_store(&z0, z);
			const sv6 dv0 = base_solve(rs->fast_base_l, rs->fast_base_dinv, z0);
			dv = sv6p_load(&dv0);
		}
		for (int i = 1; i < n; ++i)
		{
			if (links[i].dof_count == 1)
			{
				dv = drive_window_out(&w, links[i].dof, dv, &within);
			}
		}
		return within;
	}
	artic_link_temp* restrict work = a->temp;
	for (int i = 0; i < n; ++i)
	{
		sv6p_store(&work[i].m.z[0], zero);
	}
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = links + i;
		sv6p z = sv6p_load(&work[i].m.z[0]);
		if (l->dof_count == 1)
		{
			z = drive_window_in(&w, l->dof, z);
		}
		if (l->parent > 0 || floating)
		{
			sv6* p = &work[l->parent].m.z[0];
			sv6p_store(p, sv6p_add(sv6p_load(p), z));
		}
	}
	if (floating)
	{
		work[0].m.z[0] = base_solve(rs->fast_base_l, rs->fast_base_dinv, work[0].m.z[0]);
	}
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = links + i;
		sv6p dv = sv6p_load(&work[l->parent].m.z[0]);
		if (l->dof_count == 1)
		{
			dv = drive_window_out(&w, l->dof, dv, &within);
		}
		sv6p_store(&work[i].m.z[0], dv);
	}
	return within;
}

// ---- the drive path's inverse ---------------------------------------------------------------------------
//
// The windows of artic_drive_window are two passes whose every link waits for the one before (z runs down
// the tree, dv up it): about 15 ns per dof and window here, latency-bound. On a fixed base of few dofs,
// H = M + diag(extra) is instead formed and inverted once per solve, and each window is x = H^-1 g, whose
// k entries are independent sums.
//
// Composite rigid bodies (Featherstone, "Rigid Body Dynamics Algorithms", 2008, sec. 6.2): with Ic_i the
// rigid inertia of link i's subtree about O, an impulse y_j on dof j moves j's subtree rigidly with
// S_j y_j, so a dof i in that subtree feels S_i^T Ic_i S_j y_j; hence H_ij = S_j^T (Ic_i S_i) for every dof
// j on the path from i to the base (armature, h b and extra add to H_ii), and H_ij = 0 across branches.
// Everything is world-aligned about O (file header), so no transforms enter. With the dofs numbered
// parents first, H = L^T D L with L unit lower triangular and nonzero only where H is (Featherstone,
// "Efficient factorization of the joint-space inertia matrix for branched kinematic trees", IJRR 24(6),
// 2005: eliminating a dof from the leaves up touches only its ancestors, which are ancestors of one
// another):
//   for k from the last dof to the first, for each ancestor i of k (nearest first):
//     a = H_ki / H_kk;  H_ij -= a H_kj for j = i and each ancestor of i;  L_ki = a;   D_k = H_kk.
// Then H^-1 = L^-1 D^-1 L^-T = U^T D^-1 U with U = L^-T (the triangular solve applied to the identity's
// columns together, row by row), and H^-1 itself, (H^-1)_ij = sum_d U_di U_dj / D_d, both formed once
// per solve: a window's x = H^-1 g is then k independent dot products. (Applying U and U^T in turn
// instead chained each row's update of x through memory: under a profiler a window took twice as long.)
// H is symmetric positive definite (a mass matrix plus non-negative diagonal terms), so a pivot that is
// not positive means rounding has lost it, and the passes are used instead. The result is the passes' up
// to rounding (test_articulation_response).
//
// Measured on the capacity chain of bench_articulation (PD drives on every dof, 8 windows, one world),
// per step, passes against inverse (then applied as U^T D^-1 U): 6 dofs 2.01 and 1.80 us, 10 dofs 3.21
// and 2.89, 16 dofs 4.92 and 4.84, 20 dofs 6.12 and 6.97. A chain is the inverse's worst case (the most
// ancestors per dof); forming it costs O(k^3) and a window k^2, where the passes cost O(k) per window, so
// the inverse is kept to ARTIC_DRIVE_DENSE_MAX_DOFS. Forming H^-1 whole from composite inertias in 10
// numbers (math/spatial.h, rinertia), the factor's updates over whole rows, and the windows' k dot
// products took the 10-dof step from 2.86 to 2.50 us (the same machine, alternated).

bool artic_drive_dense = true;

// y += s x over n entries, two at a time (math/lanes.h).
static inline void row_axpy(double* restrict y, double s, const double* restrict x, int n)
{
	const lane2 s2 = lane2_splat(s);
	int c = 0;
	for (; c + 2 <= n; c += 2)
	{
		lane2_store(y + c, lane2_load(y + c) + s2 * lane2_load(x + c));
	}
	if (c < n)
	{
		y[c] += s * x[c];
	}
}

// x . y over n entries, two at a time.
static inline double row_dot(const double* restrict x, const double* restrict y, int n)
{
	lane2 sum = lane2_splat(0.0);
	int c = 0;
	for (; c + 2 <= n; c += 2)
	{
		sum += lane2_load(x + c) * lane2_load(y + c);
	}
	double t = sum[0] + sum[1];
	if (c < n)
	{
		t += x[c] * y[c];
	}
	return t;
}

// H^-1 from the factor L^T D L in rows.w, into rows.w (row-major, k x k, symmetric), through U = L^-T in
// rows.block_l (row-major, upper triangular: row d is zero left of column d). First L^T U = I, row by row
// from the last (each row of U is a combination of the rows after it). Then H^-1 = U^T D^-1 U: row i of
// its upper triangle, columns i to k, is the sum over d <= i of (U_di / D_d) times row d of U there, and
// the lower triangle mirrors it.
static void drive_inverse(artic* a)
{
	artic_rows* rs = &a->rows;
	const int k = a->dof_count;
	double* restrict w = rs->w; // the factor, then H^-1
	double* restrict u = rs->block_l;
	const double* restrict dinv = rs->fast_dinv;
	// Row j of U, from the last: U_jc = -sum_{j < d <= c} L_dj U_dc for c > j (L_dj is zero unless j is an
	// ancestor of d, and U_dc zero left of d). Each pair of columns sums in a register over d, rather than
	// in memory one row at a time.
	for (int j = k - 1; j >= 0; --j)
	{
		double* uj = u + (size_t)j * (size_t)k;
		for (int c = 0; c < j; ++c)
		{
			uj[c] = 0.0;
		}
		uj[j] = 1.0;
		int c = j + 1;
		for (; c + 2 <= k; c += 2)
		{
			lane2 sum = lane2_splat(0.0);
			for (int d = j + 1; d <= c + 1; ++d)
			{
				sum -= lane2_splat(w[(size_t)d * (size_t)k + (size_t)j]) * lane2_load(u + (size_t)d * (size_t)k + c);
			}
			lane2_store(uj + c, sum);
		}
		if (c < k)
		{
			double sum = 0.0;
			for (int d = j + 1; d <= c; ++d)
			{
				sum -= w[(size_t)d * (size_t)k + (size_t)j] * u[(size_t)d * (size_t)k + (size_t)c];
			}
			uj[c] = sum;
		}
	}
	// H^-1 = U^T D^-1 U into w's upper triangle (this pass reads only U), then the lower triangle mirrors it
	// over the factor, which is no longer needed.
	double t[ARTIC_DRIVE_DENSE_MAX_DOFS];
	for (int i = 0; i < k; ++i)
	{
		for (int d = 0; d <= i; ++d)
		{
			t[d] = u[(size_t)d * (size_t)k + (size_t)i] * dinv[d];
		}
		double* wi = w + (size_t)i * (size_t)k;
		int c = i;
		for (; c + 2 <= k; c += 2)
		{
			lane2 sum = lane2_splat(0.0);
			for (int d = 0; d <= i; ++d)
			{
				sum += lane2_splat(t[d]) * lane2_load(u + (size_t)d * (size_t)k + c);
			}
			lane2_store(wi + c, sum);
		}
		if (c < k)
		{
			double sum = 0.0;
			for (int d = 0; d <= i; ++d)
			{
				sum += t[d] * u[(size_t)d * (size_t)k + (size_t)c];
			}
			wi[c] = sum;
		}
	}
	for (int i = 0; i < k; ++i)
	{
		for (int j = i + 1; j < k; ++j)
		{
			w[(size_t)j * (size_t)k + (size_t)i] = w[(size_t)i * (size_t)k + (size_t)j];
		}
	}
}

bool artic_drive_inverse(artic* a, double h, const double* extra)
{
	artic_rows* rs = &a->rows;
	const int n = a->link_count, k = a->dof_count;
	const artic_link* restrict links = a->links;
	int32_t* restrict parent = rs->fast_parent;
	double* restrict dinv = rs->fast_dinv;
	double* restrict lm = rs->w;
	if (k > ARTIC_DRIVE_DENSE_MAX_DOFS)
	{
		return false;
	}
	// The dofs' parents, every link's rigid inertia about O.
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = links + i;
		int p = l->parent;
		while (p > 0 && links[p].dof_count == 0)
		{
			p = links[p].parent;
		}
		if (l->dof_count > 1)
		{
			return false; // one dof per joint here (the drive path's own condition)
		}
		if (l->dof_count == 1)
		{
			parent[l->dof] = p > 0 ? links[p].dof : -1;
			if (parent[l->dof] >= l->dof)
			{
				return false; // dofs not numbered parents first: not a tree factor's order
			}
		}
	}
	for (int i = 1; i < n; ++i)
	{
		const artic_work* w = a->work + i;
		rinertia_from_rigid(&a->temp[i].m.ic, links[i].mass, w->r, &w->ic);
	}
	// H, by rows of the lower triangle (row d: its ancestors' columns and the diagonal); the composite
	// inertias accumulate from the leaves (children after parents in link order).
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = links + i;
		rinertia* ic = &a->temp[i].m.ic;
		if (l->dof_count == 1)
		{
			const int d = l->dof;
			const sv6 s = a->dw[d].s;
			const sv6 f = rinertia_mul(ic, s);
			double* row = lm + (size_t)d * (size_t)k;
			for (int j = 0; j < d; ++j)
			{
				row[j] = 0.0; // H_dj = 0 unless j is an ancestor of d; the factor keeps those zeros
			}
			row[d] = sv6_dot(s, f) + l->armature + h * l->joint_damping + extra[d];
			for (int j = parent[d]; j >= 0; j = parent[j])
			{
				row[j] = sv6_dot(a->dw[j].s, f);
			}
		}
		if (l->parent > 0)
		{
			rinertia_add_to(&a->temp[l->parent].m.ic, ic);
		}
	}
	// L^T D L from the leaves.
	for (int d = k - 1; d >= 0; --d)
	{
		double* restrict rd = lm + (size_t)d * (size_t)k;
		const double pivot = rd[d];
		if (!(pivot > 0.0 && pivot < INFINITY))
		{
			return false;
		}
		const double inv = 1.0 / pivot;
		dinv[d] = inv;
		for (int i = parent[d]; i >= 0; i = parent[i])
		{
			// Over every column j <= i, not only i's ancestors: the ancestors of d numbered below i are
			// exactly i's, so rd_j is zero at the others and leaves them zero. The loop then runs over
			// consecutive entries instead of chasing parent links.
			const double f = rd[i] * inv;
			row_axpy(lm + (size_t)i * (size_t)k, -f, rd, i + 1);
			rd[i] = f;
		}
	}
	drive_inverse(a);
	return true;
}

bool artic_drive_window_dense(artic* a, double time_left)
{
	// As artic_drive_window, with x = H^-1 g in place of the passes.
	artic_rows* rs = &a->rows;
	const int k = rs->k;
	const double* restrict hinv = rs->w; // H^-1, row-major (drive_inverse)
	const double* restrict fa = rs->fast_a;
	const double* restrict share = rs->fast_share;
	const double* restrict v = rs->v;
	double* restrict g = rs->fast_g;
	double* restrict x = rs->fast_y;
	const double* restrict fc = rs->fast_c;
	const double* restrict cpos = rs->fast_cpos;
	const double* restrict ctp = rs->fast_ctp;
	const double* restrict dx = rs->dx;
	// The right-hand side, two dofs at a time (each lane as the scalar tail).
	const lane2 left2 = lane2_splat(time_left);
	int e = 0;
	for (; e + 2 <= k; e += 2)
	{
		const lane2 c = lane2_load(fc + e) - lane2_load(cpos + e) * lane2_load(dx + e) - lane2_load(ctp + e) * left2;
		lane2_store(g + e, (c - lane2_load(share + e)) - lane2_load(fa + e) * lane2_load(v + e));
	}
	for (; e < k; ++e)
	{
		const double c = fc[e] - cpos[e] * dx[e] - ctp[e] * time_left;
		g[e] = (c - share[e]) - fa[e] * v[e];
	}
	// Two rows at a time, each summing two columns at a time: four independent sums in flight.
	int r = 0;
	for (; r + 2 <= k; r += 2)
	{
		const double* h0 = hinv + (size_t)r * (size_t)k;
		const double* h1 = h0 + k;
		lane2 sum0 = lane2_splat(0.0), sum1 = lane2_splat(0.0);
		int j = 0;
		for (; j + 2 <= k; j += 2)
		{
			const lane2 gj = lane2_load(g + j);
			sum0 += lane2_load(h0 + j) * gj;
			sum1 += lane2_load(h1 + j) * gj;
		}
		double t0 = sum0[0] + sum0[1], t1 = sum1[0] + sum1[1];
		if (j < k)
		{
			t0 += h0[j] * g[j];
			t1 += h1[j] * g[j];
		}
		x[r] = t0;
		x[r + 1] = t1;
	}
	if (r < k)
	{
		x[r] = row_dot(hinv + (size_t)r * (size_t)k, g, k);
	}
	// drive_window_out's impulse change and bounds: |lambda| <= bound, and a push (lambda != 0) leaves the
	// dof no faster than top in its direction. Two dofs at a time: the lanes' comparisons give masks of all
	// ones or zeros, and `out` gathers the bounds they break.
	const double* restrict bound = rs->fast_bound;
	const double* restrict top = rs->fast_speed;
	lane2_mask out = { 0, 0 };
	int d = 0;
	for (; d + 2 <= k; d += 2)
	{
		const lane2 delta = lane2_load(g + d) - lane2_load(fa + d) * lane2_load(x + d);
		const lane2 lambda = lane2_load(share + d) + delta, end = lane2_load(v + d) + lane2_load(x + d);
		const lane2 b = lane2_load(bound + d), t = lane2_load(top + d), zero = lane2_splat(0.0);
		const lane2_mask in = (lambda <= b) & (-lambda <= b); // false for NaN
		const lane2_mask fast = ((lambda > zero) & (end > t)) | ((lambda < zero) & (-end > t));
		out |= ~in | fast;
		lane2_store(g + d, delta);
	}
	bool within = (out[0] | out[1]) == 0;
	for (; d < k; ++d)
	{
		const double delta = g[d] - fa[d] * x[d];
		const double lambda = share[d] + delta, end = v[d] + x[d];
		within &= (fabs(lambda) <= bound[d]) & ((lambda == 0.0) | !(copysign(1.0, lambda) * end > top[d]));
		g[d] = delta;
	}
	return within;
}

// The rigid spatial inertia of link i about O times dv: the centre c = O + r moves by dv.v + dw x r, so
// f = m (dv.v + dw x r) and the torque about O is Ic dw + r x f.
static sv6 rigid_times(const artic* a, int i, sv6 dv)
{
	const artic_work* w = a->work + i;
	const sn_vec3 f = sn_scale(a->links[i].mass, sn_add(dv.v, sn_cross(dv.w, w->r)));
	return sv6_make(sn_add(sym33_mul(&w->ic, dv.w), sn_cross(w->r, f)), f);
}

void artic_free_impulse(artic* a, double h, double* out)
{
	// With zero joint accelerations (da = 0) the file header's force law gives each link's joint force
	// F0_i = p0_i + sum_c F0_c, the recursive Newton-Euler bias, and S_i^T F0_i = C_i: the velocity terms,
	// gravity and external forces the joint carries. The free motion solved M qdd = tau - C (M with
	// armature and h b, tau with -b qd and the applied forces, p0 as the last pass left them), so the
	// kick's impulse is M h qdd = h (tau - C): one inward sum, where M times the kick takes an outward
	// and an inward pass with a rigid inertia product per link. A fixed base only (a floating base's
	// dofs move it too: artic_mass_times keeps its momentum).
	const int n = a->link_count;
	const bool inputs = a->has_inputs;
	artic_link_temp* restrict work = a->temp;
	const artic_work* restrict geo = a->work;
	for (int i = 0; i < n; ++i)
	{
		work[i].m.z[0] = geo[i].p0;
	}
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = a->links + i;
		const sv6 f = work[i].m.z[0];
		for (int d = l->dof; d < l->dof + l->dof_count; ++d)
		{
			double tau = -l->joint_damping * a->qd[d];
			if (inputs)
			{
				tau += a->joint_force[d];
			}
			out[d] = h * (tau - sv6_dot(a->dw[d].s, f));
		}
		if (l->parent > 0)
		{
			sv6* p = &work[l->parent].m.z[0];
			*p = sv6_add(*p, f);
		}
	}
}

bool artic_mass_times(artic* a, double h, const double* x, double* out)
{
	// Outward: the spatial velocity change dv_i = dv_p + S_i x_i from a still base. A floating base, which
	// no impulse acts on, then takes the change dv_0 that keeps the tree's momentum: the composite rigid
	// inertia IC of every link about O gives IC dv_0 = -sum_i I_i dv_i, and dv_0 adds to every link.
	// Inward: the force each link takes, f_i = I_i dv_i + sum_c f_c; out_i = S_i^T f_i plus the armature
	// and implicit damping's (J + h b) x_i, as the impulse passes' D carries them.
	const int n = a->link_count;
	const artic_work* restrict geo = a->work;
	artic_link_temp* restrict work = a->temp;
	work[0].m.z[0] = sv6_zero();
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = a->links + i;
		sv6 dv = work[l->parent].m.z[0];
		if (l->dof_count == 1)
		{
			dv = sv6_mul_add(dv, x[l->dof], a->dw[l->dof].s);
		}
		work[i].m.z[0] = dv;
	}
	if (!a->fixed_base)
	{
		ainertia composite, one;
		ainertia_from_rigid(&composite, a->links[0].mass, geo[0].r, &geo[0].ic);
		sv6 momentum = sv6_zero();
		for (int i = 1; i < n; ++i)
		{
			ainertia_from_rigid(&one, a->links[i].mass, geo[i].r, &geo[i].ic);
			ainertia_add_to(&composite, &one);
			momentum = sv6_add(momentum, rigid_times(a, i, work[i].m.z[0]));
		}
		double dense[36], l[36], dinv[6];
		ainertia_to_dense(&composite, dense);
		if (!ldlt_factor(dense, 6, l, dinv))
		{
			return false;
		}
		const sv6 dv0 = base_solve(l, dinv, momentum);
		for (int i = 0; i < n; ++i)
		{
			work[i].m.z[0] = sv6_add(work[i].m.z[0], dv0);
		}
	}
	for (int i = 0; i < n; ++i)
	{
		work[i].m.z[1] = sv6_zero();
	}
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = a->links + i;
		artic_link_temp* w = work + i;
		const sv6 total = sv6_add(w->m.z[1], rigid_times(a, i, w->m.z[0]));
		if (l->dof_count == 1)
		{
			const int d = l->dof;
			out[d] = sv6_dot(a->dw[d].s, total) + (l->armature + h * l->joint_damping) * x[d];
		}
		if (l->parent > 0)
		{
			artic_link_temp* p = work + l->parent;
			p->m.z[1] = sv6_add(p->m.z[1], total);
		}
	}
	return true;
}

void artic_impulse_response(artic* a, sv6 base_out[2])
{
	// Both right-hand sides at once, one per lane (math/lanes.h): every lane computes what the recursion
	// of the file header computes for its own right-hand side, in the same order.
	const int n = a->link_count;
	const artic_link* restrict links = a->links;
	artic_link_temp* restrict work = a->temp;
	artic_dof_work* restrict dws = a->dw;
	const sv6x2 zero = sv6x2_pair(sv6_zero(), sv6_zero());
	for (int i = 0; i < n; ++i)
	{
		work[i].m.zz = zero;
	}
	// Inward: u = y - S^T z is kept in y; the parent receives z + U D^-1 u.
	for (int i = n - 1; i > 0; --i)
	{
		const artic_link* l = links + i;
		artic_link_temp* w = work + i;
		artic_link_temp* p = work + l->parent;
		artic_dof_work* dw = dws + l->dof;
		sv6x2 z = w->m.zz;
		if (l->dof_count == 1)
		{
			lane2 y = lane2_load(dw->y) - sv6x2_dot_splat(dw->s, &z);
			lane2_store(dw->y, y);
			sv6x2_mul_add_splat(&z, lane2_splat(dw->dinv[0]) * y, dw->u6);
		}
		else if (l->dof_count == 3)
		{
			lane2 u[3];
			for (int d = 0; d < 3; ++d)
			{
				u[d] = lane2_load(dw[d].y) - sv6x2_dot_splat(dw[d].s, &z);
				lane2_store(dw[d].y, u[d]);
			}
			for (int d = 0; d < 3; ++d)
			{
				lane2 x = lane2_splat(dw[d].dinv[0]) * u[0] + lane2_splat(dw[d].dinv[1]) * u[1];
				x = x + lane2_splat(dw[d].dinv[2]) * u[2];
				sv6x2_mul_add_splat(&z, x, dw[d].u6);
			}
		}
		p->m.zz = sv6x2_add(p->m.zz, z);
	}
	// The base, then outward: z now holds each link's velocity change.
	for (int r = 0; r < 2; ++r)
	{
		// A spatial impulse f on the base itself (contacts on the links, artic/solve.c) enters as -f.
		sv6 z0 = sv6_sub(sv6x2_lane(&work[0].m.zz, r), a->base_impulse[r]);
		base_out[r] = a->fixed_base ? sv6_zero() : artic_base_response(a, z0);
	}
	work[0].m.zz = sv6x2_pair(base_out[0], base_out[1]);
	for (int i = 1; i < n; ++i)
	{
		const artic_link* l = links + i;
		artic_link_temp* w = work + i;
		artic_dof_work* dw = dws + l->dof;
		const sv6x2 dvp = work[l->parent].m.zz;
		sv6x2 dv = dvp;
		if (l->dof_count == 1)
		{
			lane2 x = lane2_splat(dw->dinv[0]) * (lane2_load(dw->y) - sv6x2_dot_splat(dw->u6, &dvp));
			lane2_store(dw->y, x);
			sv6x2_mul_add_splat(&dv, x, dw->s);
		}
		else if (l->dof_count == 3)
		{
			lane2 t[3];
			for (int d = 0; d < 3; ++d)
			{
				t[d] = lane2_load(dw[d].y) - sv6x2_dot_splat(dw[d].u6, &dvp);
			}
			for (int d = 0; d < 3; ++d)
			{
				lane2 x = lane2_splat(dw[d].dinv[0]) * t[0] + lane2_splat(dw[d].dinv[1]) * t[1];
				x = x + lane2_splat(dw[d].dinv[2]) * t[2];
				lane2_store(dw[d].y, x);
				sv6x2_mul_add_splat(&dv, x, dw[d].s);
			}
		}
		w->m.zz = dv;
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

// The incoming joint forces of the last solve into a->incoming (the file header's "Incoming joint
// forces"): overwritten by a step's first solve, accumulated by its later substeps.
static void incoming_compute(artic* a)
{
	const int n = a->link_count;
	// Each link's own share of its joint force, p0 + I da with the effective acceleration, into pa: two
	// links at a time (math/lanes.h).
	for (int i = 0; i < n; i += 2)
	{
		const int j = i + 1 < n ? i + 1 : i;
		artic_work* wi = a->work + i;
		artic_work* wj = a->work + j;
		const vec3x2 r = vec3x2_pair(wi->r, wj->r), al = vec3x2_pair(wi->a.w, wj->a.w);
		const sym33x2 ic = sym33x2_pair(&wi->ic, &wj->ic);
		const vec3x2 f = vec3x2_scale(lane2_pair(a->links[i].mass, a->links[j].mass),
									  vec3x2_add(vec3x2_pair(wi->a.v, wj->a.v), vec3x2_cross(al, r)));
		const vec3x2 t = vec3x2_add(sym33x2_mul(&ic, al), vec3x2_cross(r, f));
		const vec3x2 pw = vec3x2_add(vec3x2_pair(wi->p0.w, wj->p0.w), t);
		const vec3x2 pv = vec3x2_add(vec3x2_pair(wi->p0.v, wj->p0.v), f);
		wj->pa = sv6_make(vec3x2_lane(pw, 1), vec3x2_lane(pv, 1));
		wi->pa = sv6_make(vec3x2_lane(pw, 0), vec3x2_lane(pv, 0));
	}

	// Inward: add the children's joint forces.
	for (int i = n - 1; i > 0; --i)
	{
		artic_work* p = a->work + a->links[i].parent;
		p->pa = sv6_add(p->pa, a->work[i].pa);
	}
	// Each link's joint force as impulse about its anchor (two links at a time).
	const bool first = a->incoming_first;
	const lane2 h2 = lane2_splat(a->incoming_h);
	for (int i = 0; i < n; i += 2)
	{
		const int j = i + 1 < n ? i + 1 : i;
		const artic_work* wi = a->work + i;
		const artic_work* wj = a->work + j;
		const vec3x2 fv = vec3x2_pair(wi->pa.v, wj->pa.v);
		vec3x2 tw = vec3x2_sub(vec3x2_pair(wi->pa.w, wj->pa.w), vec3x2_cross(vec3x2_pair(wi->ra, wj->ra), fv));
		vec3x2 tv = fv;
		if (i == 0 && !a->fixed_base)
		{
			// A floating base has no inbound joint.
			tw.x[0] = tw.y[0] = tw.z[0] = 0.0;
			tv.x[0] = tv.y[0] = tv.z[0] = 0.0;
		}
		sv6* inc_i = a->incoming + i;
		sv6* inc_j = a->incoming + j;
		if (first)
		{
			tw = vec3x2_scale(h2, tw);
			tv = vec3x2_scale(h2, tv);
		}
		else
		{
			tw = vec3x2_mul_add(vec3x2_pair(inc_i->w, inc_j->w), h2, tw);
			tv = vec3x2_mul_add(vec3x2_pair(inc_i->v, inc_j->v), h2, tv);
		}
		*inc_j = sv6_make(vec3x2_lane(tw, 1), vec3x2_lane(tv, 1));
		*inc_i = sv6_make(vec3x2_lane(tw, 0), vec3x2_lane(tv, 0));
	}
}

void artic_incoming_settle(artic* a)
{
	if (a->incoming_pending)
	{
		incoming_compute(a);
		a->incoming_pending = false;
	}
}

const sv6* artic_incoming(const artic* a)
{
	// A cache filled on first read: the world is not shared between threads (sinew/world.h), and the
	// articulation itself is never const where it was created.
	artic_incoming_settle((artic*)a);
	return a->incoming;
}

void artic_finish(artic* a, double h, bool have_rows, bool responded)
{
	const int n = a->link_count;
	const double inv_h = 1.0 / h;
	sv6 base[2] = { sv6_zero(), sv6_zero() };
	if (have_rows && !responded)
	{
		artic_impulse_response(a, base);
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

	// Outward: speeds, positions and kinematics, and each link's effective acceleration.
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
		artic_link_kinematics(a, i);
	}

	// The incoming joint forces are computed when they are read (artic_incoming), from what this solve
	// leaves in the work arrays: a step that nobody asks them of skips that pass.
	a->incoming_pending = true;
	a->incoming_first = a->first_substep;
	a->incoming_h = h;
	a->first_substep = false;
	a->max_speed = max_speed;
}
