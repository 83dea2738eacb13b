// Spatial (6D) algebra for the articulation, in world-aligned axes about one reference point O.
//
// Every spatial quantity of one articulation solve is expressed in the world axes about the same point
// O (the base origin at the start of the solve), so no coordinate transforms are needed between a link
// and its parent: the price of Featherstone's link-frame form (a 6x6 transform per link and pass) is
// paid instead by recomputing each link's inertia about O once per solve.
//
//   motion vector  m = (w, v)   angular velocity, and the velocity of the body point now at O
//   force vector   f = (n, f)   torque about O, and force
//   m1 x m2  = (w1 x w2, w1 x v2 + v1 x w2)     (motion cross product)
//
// Rigid inertia of a link with mass m, centre of mass r (relative to O) and world inertia Ic about the
// centre of mass: the momentum of velocity (w, v) is p = m (v + w x r), L_O = Ic w + r x p, so
//   I = [[A, B], [B^T, C]],  A = Ic + m (|r|^2 1 - r r^T),  B = m [r]x,  C = m 1
// An articulated inertia has the same block shape with A and C symmetric and B general; it is stored as
// the three blocks (21 numbers).
#ifndef SINEW_SPATIAL_H
#define SINEW_SPATIAL_H

#include "sinew/math.h"

// Spatial motion or force vector.
typedef struct sv6
{
	sn_vec3 w; // angular part (or torque about O)
	sn_vec3 v; // linear part (or force)
} sv6;

// Symmetric 3x3 matrix.
typedef struct sym33
{
	double xx, yy, zz, xy, xz, yz;
} sym33;

// Articulated (or rigid) spatial inertia [[A, B], [B^T, C]].
typedef struct ainertia
{
	sym33 a;
	sn_mat33 b;
	sym33 c;
} ainertia;

static inline sv6 sv6_zero(void)
{
	sv6 r = { { 0, 0, 0 }, { 0, 0, 0 } };
	return r;
}

static inline sv6 sv6_make(sn_vec3 w, sn_vec3 v)
{
	sv6 r = { w, v };
	return r;
}

static inline sv6 sv6_add(sv6 a, sv6 b)
{
	return sv6_make(sn_add(a.w, b.w), sn_add(a.v, b.v));
}

static inline sv6 sv6_sub(sv6 a, sv6 b)
{
	return sv6_make(sn_sub(a.w, b.w), sn_sub(a.v, b.v));
}

// a + s b
static inline sv6 sv6_mul_add(sv6 a, double s, sv6 b)
{
	return sv6_make(sn_mul_add(a.w, s, b.w), sn_mul_add(a.v, s, b.v));
}

static inline sv6 sv6_scale(double s, sv6 a)
{
	return sv6_make(sn_scale(s, a.w), sn_scale(s, a.v));
}

static inline double sv6_dot(sv6 a, sv6 b)
{
	return sn_dot(a.w, b.w) + sn_dot(a.v, b.v);
}

// Motion cross product m1 x m2.
static inline sv6 sv6_cross_motion(sv6 a, sv6 b)
{
	return sv6_make(sn_cross(a.w, b.w), sn_add(sn_cross(a.w, b.v), sn_cross(a.v, b.w)));
}

static inline sn_vec3 sym33_mul(const sym33* s, sn_vec3 v)
{
	return sn_v3(s->xx * v.x + s->xy * v.y + s->xz * v.z, s->xy * v.x + s->yy * v.y + s->yz * v.z,
				 s->xz * v.x + s->yz * v.y + s->zz * v.z);
}

// R S R^T for a rotation matrix R (by columns) and a symmetric S.
static inline sym33 sym33_rotate(sn_mat33 r, const sym33* s)
{
	// Columns of R S are R times the columns of S; then (R S R^T)_ij = (R S)_i-row . R_j-row.
	sn_vec3 rs0 = sn_add(sn_add(sn_scale(s->xx, r.cx), sn_scale(s->xy, r.cy)), sn_scale(s->xz, r.cz));
	sn_vec3 rs1 = sn_add(sn_add(sn_scale(s->xy, r.cx), sn_scale(s->yy, r.cy)), sn_scale(s->yz, r.cz));
	sn_vec3 rs2 = sn_add(sn_add(sn_scale(s->xz, r.cx), sn_scale(s->yz, r.cy)), sn_scale(s->zz, r.cz));
	// (R S R^T)_ij = sum_k (R S)_ik R_jk; (R S)_ik is component i of column k.
	sym33 o;
	o.xx = rs0.x * r.cx.x + rs1.x * r.cy.x + rs2.x * r.cz.x;
	o.yy = rs0.y * r.cx.y + rs1.y * r.cy.y + rs2.y * r.cz.y;
	o.zz = rs0.z * r.cx.z + rs1.z * r.cy.z + rs2.z * r.cz.z;
	o.xy = rs0.x * r.cx.y + rs1.x * r.cy.y + rs2.x * r.cz.y;
	o.xz = rs0.x * r.cx.z + rs1.x * r.cy.z + rs2.x * r.cz.z;
	o.yz = rs0.y * r.cx.z + rs1.y * r.cy.z + rs2.y * r.cz.z;
	return o;
}

// A = Ic + m (|r|^2 1 - r r^T): a rigid body's rotational inertia about O (see the file header).
static inline sym33 rigid_inertia_about_o(double mass, sn_vec3 r, const sym33* ic)
{
	double r2 = sn_dot(r, r);
	sym33 a;
	a.xx = ic->xx + mass * (r2 - r.x * r.x);
	a.yy = ic->yy + mass * (r2 - r.y * r.y);
	a.zz = ic->zz + mass * (r2 - r.z * r.z);
	a.xy = ic->xy - mass * r.x * r.y;
	a.xz = ic->xz - mass * r.x * r.z;
	a.yz = ic->yz - mass * r.y * r.z;
	return a;
}

// The rigid inertia as an articulated inertia (see the file header).
static inline void ainertia_from_rigid(ainertia* out, double mass, sn_vec3 r, const sym33* ic)
{
	out->a = rigid_inertia_about_o(mass, r, ic);
	// m [r]x by columns: [r]x e_x = (0, r.z, -r.y), e_y -> (-r.z, 0, r.x), e_z -> (r.y, -r.x, 0).
	out->b.cx = sn_v3(0.0, mass * r.z, -mass * r.y);
	out->b.cy = sn_v3(-mass * r.z, 0.0, mass * r.x);
	out->b.cz = sn_v3(mass * r.y, -mass * r.x, 0.0);
	out->c.xx = mass;
	out->c.yy = mass;
	out->c.zz = mass;
	out->c.xy = 0.0;
	out->c.xz = 0.0;
	out->c.yz = 0.0;
}

static inline sv6 ainertia_mul(const ainertia* i, sv6 m)
{
	return sv6_make(sn_add(sym33_mul(&i->a, m.w), sn_mat33_mul_v(i->b, m.v)),
					sn_add(sn_mat33_mul_tv(i->b, m.w), sym33_mul(&i->c, m.v)));
}

static inline void sym33_add_to(sym33* dst, const sym33* s)
{
	dst->xx += s->xx;
	dst->yy += s->yy;
	dst->zz += s->zz;
	dst->xy += s->xy;
	dst->xz += s->xz;
	dst->yz += s->yz;
}

// dst += i (an articulated inertia passed through a joint without dofs).
static inline void ainertia_add_to(ainertia* dst, const ainertia* i)
{
	sym33_add_to(&dst->a, &i->a);
	dst->b.cx = sn_add(dst->b.cx, i->b.cx);
	dst->b.cy = sn_add(dst->b.cy, i->b.cy);
	dst->b.cz = sn_add(dst->b.cz, i->b.cz);
	sym33_add_to(&dst->c, &i->c);
}

// The articulated inertia as a dense row-major 6x6 matrix (for the floating base's inverse).
static inline void ainertia_to_dense(const ainertia* i, double* m)
{
	const sym33* a = &i->a;
	const sym33* c = &i->c;
	double top[3][3] = { { a->xx, a->xy, a->xz }, { a->xy, a->yy, a->yz }, { a->xz, a->yz, a->zz } };
	double bot[3][3] = { { c->xx, c->xy, c->xz }, { c->xy, c->yy, c->yz }, { c->xz, c->yz, c->zz } };
	const sn_vec3* bc[3] = { &i->b.cx, &i->b.cy, &i->b.cz };
	for (int r = 0; r < 3; ++r)
	{
		for (int k = 0; k < 3; ++k)
		{
			m[r * 6 + k] = top[r][k];
			m[(r + 3) * 6 + k + 3] = bot[r][k];
		}
	}
	for (int k = 0; k < 3; ++k)
	{
		// B's column k: rows 0..2 of column 3 + k; B^T's row k: columns 0..2 of row 3 + k.
		double col[3] = { bc[k]->x, bc[k]->y, bc[k]->z };
		for (int r = 0; r < 3; ++r)
		{
			m[r * 6 + 3 + k] = col[r];
			m[(3 + k) * 6 + r] = col[r];
		}
	}
}

// A rigid inertia (or a composite of rigid inertias, which is rigid) in 10 numbers: mass m, first moment
// h = m r, and A = Ic + m (|r|^2 1 - r r^T) about O. Its B = [h]x and C = m 1 above are implied, so
// I (w, v) = (A w + h x v, m v - h x w), and composites add entry by entry.
typedef struct rinertia
{
	double m;
	sn_vec3 h;
	sym33 a;
} rinertia;

static inline void rinertia_from_rigid(rinertia* out, double mass, sn_vec3 r, const sym33* ic)
{
	out->m = mass;
	out->h = sn_scale(mass, r);
	out->a = rigid_inertia_about_o(mass, r, ic);
}

static inline void rinertia_add_to(rinertia* dst, const rinertia* s)
{
	dst->m += s->m;
	dst->h = sn_add(dst->h, s->h);
	sym33_add_to(&dst->a, &s->a);
}

static inline sv6 rinertia_mul(const rinertia* i, sv6 m)
{
	return sv6_make(sn_add(sym33_mul(&i->a, m.w), sn_cross(i->h, m.v)),
					sn_sub(sn_scale(i->m, m.v), sn_cross(i->h, m.w)));
}

#endif
