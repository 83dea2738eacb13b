// Sinew core: small vector, quaternion and matrix types with inline operations. Double precision.
//
// Conventions: right-handed frames; a quaternion {x, y, z, w} with w the scalar part rotates a vector
// by v' = q v q*; a matrix is stored by columns; a transform maps a local point p to q p q* + p0.
#ifndef SINEW_MATH_H
#define SINEW_MATH_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sn_vec3
{
	double x, y, z;
} sn_vec3;

typedef struct sn_quat
{
	double x, y, z, w;
} sn_quat;

// 3x3 matrix by columns.
typedef struct sn_mat33
{
	sn_vec3 cx, cy, cz;
} sn_mat33;

// Rigid transform: position (m) and unit rotation.
typedef struct sn_transform
{
	sn_vec3 p;
	sn_quat q;
} sn_transform;

#define SN_PI 3.14159265358979323846

static inline sn_vec3 sn_v3(double x, double y, double z)
{
	sn_vec3 v = { x, y, z };
	return v;
}
static inline sn_vec3 sn_add(sn_vec3 a, sn_vec3 b)
{
	return sn_v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline sn_vec3 sn_sub(sn_vec3 a, sn_vec3 b)
{
	return sn_v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline sn_vec3 sn_neg(sn_vec3 a)
{
	return sn_v3(-a.x, -a.y, -a.z);
}
static inline sn_vec3 sn_scale(double s, sn_vec3 a)
{
	return sn_v3(s * a.x, s * a.y, s * a.z);
}
// a + s * b
static inline sn_vec3 sn_mul_add(sn_vec3 a, double s, sn_vec3 b)
{
	return sn_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
static inline double sn_dot(sn_vec3 a, sn_vec3 b)
{
	return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline sn_vec3 sn_cross(sn_vec3 a, sn_vec3 b)
{
	return sn_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double sn_length(sn_vec3 a)
{
	return sqrt(sn_dot(a, a));
}
static inline double sn_length_sq(sn_vec3 a)
{
	return sn_dot(a, a);
}
// Unit vector along a; the zero vector stays zero.
static inline sn_vec3 sn_normalize(sn_vec3 a)
{
	double len = sn_length(a);
	return len > 0.0 ? sn_scale(1.0 / len, a) : a;
}
static inline int sn_vec3_is_finite(sn_vec3 a)
{
	return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}

static inline sn_quat sn_quat_identity(void)
{
	sn_quat q = { 0.0, 0.0, 0.0, 1.0 };
	return q;
}
static inline sn_quat sn_quat_conj(sn_quat q)
{
	sn_quat r = { -q.x, -q.y, -q.z, q.w };
	return r;
}
// Hamilton product a * b (apply b, then a).
static inline sn_quat sn_quat_mul(sn_quat a, sn_quat b)
{
	sn_quat r;
	r.w = a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z;
	r.x = a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y;
	r.y = a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x;
	r.z = a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w;
	return r;
}
// conj(a) * b
static inline sn_quat sn_quat_mul_conj_a(sn_quat a, sn_quat b)
{
	return sn_quat_mul(sn_quat_conj(a), b);
}
static inline double sn_quat_length(sn_quat q)
{
	return sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
}
static inline sn_quat sn_quat_normalize(sn_quat q)
{
	double len = sn_quat_length(q);
	if (len > 0.0)
	{
		double s = 1.0 / len;
		q.x *= s;
		q.y *= s;
		q.z *= s;
		q.w *= s;
	}
	return q;
}
static inline int sn_quat_is_finite(sn_quat q)
{
	return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w);
}
// Rotation by angle (rad) about a unit axis.
static inline sn_quat sn_quat_from_axis_angle(sn_vec3 unit_axis, double angle)
{
	double s = sin(0.5 * angle);
	sn_quat q = { s * unit_axis.x, s * unit_axis.y, s * unit_axis.z, cos(0.5 * angle) };
	return q;
}
// Rotate v by q.
static inline sn_vec3 sn_rotate(sn_quat q, sn_vec3 v)
{
	// v' = v + 2 w (u x v) + 2 u x (u x v), with u the vector part.
	sn_vec3 u = sn_v3(q.x, q.y, q.z);
	sn_vec3 t = sn_scale(2.0, sn_cross(u, v));
	return sn_add(sn_add(v, sn_scale(q.w, t)), sn_cross(u, t));
}
// Rotate v by the inverse of q.
static inline sn_vec3 sn_inv_rotate(sn_quat q, sn_vec3 v)
{
	return sn_rotate(sn_quat_conj(q), v);
}

static inline sn_mat33 sn_mat33_zero(void)
{
	sn_mat33 m = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } };
	return m;
}
static inline sn_mat33 sn_mat33_diag(double a, double b, double c)
{
	sn_mat33 m = { { a, 0, 0 }, { 0, b, 0 }, { 0, 0, c } };
	return m;
}
static inline sn_vec3 sn_mat33_mul_v(sn_mat33 m, sn_vec3 v)
{
	return sn_v3(m.cx.x * v.x + m.cy.x * v.y + m.cz.x * v.z, m.cx.y * v.x + m.cy.y * v.y + m.cz.y * v.z,
				 m.cx.z * v.x + m.cy.z * v.y + m.cz.z * v.z);
}
static inline sn_vec3 sn_mat33_mul_tv(sn_mat33 m, sn_vec3 v)
{
	return sn_v3(sn_dot(m.cx, v), sn_dot(m.cy, v), sn_dot(m.cz, v));
}
static inline sn_mat33 sn_mat33_mul(sn_mat33 a, sn_mat33 b)
{
	sn_mat33 m = { sn_mat33_mul_v(a, b.cx), sn_mat33_mul_v(a, b.cy), sn_mat33_mul_v(a, b.cz) };
	return m;
}
static inline sn_mat33 sn_mat33_transpose(sn_mat33 m)
{
	sn_mat33 t = { { m.cx.x, m.cy.x, m.cz.x }, { m.cx.y, m.cy.y, m.cz.y }, { m.cx.z, m.cy.z, m.cz.z } };
	return t;
}
// Rotation matrix of a unit quaternion.
static inline sn_mat33 sn_mat33_from_quat(sn_quat q)
{
	sn_mat33 m = { sn_rotate(q, sn_v3(1, 0, 0)), sn_rotate(q, sn_v3(0, 1, 0)), sn_rotate(q, sn_v3(0, 0, 1)) };
	return m;
}
// R M R^T for a rotation R given as a quaternion.
static inline sn_mat33 sn_mat33_rotate_tensor(sn_quat q, sn_mat33 m)
{
	sn_mat33 r = sn_mat33_from_quat(q);
	return sn_mat33_mul(sn_mat33_mul(r, m), sn_mat33_transpose(r));
}

static inline sn_transform sn_transform_identity(void)
{
	sn_transform t = { { 0, 0, 0 }, { 0, 0, 0, 1 } };
	return t;
}
static inline sn_vec3 sn_transform_point(sn_transform t, sn_vec3 p)
{
	return sn_add(sn_rotate(t.q, p), t.p);
}
static inline sn_vec3 sn_inv_transform_point(sn_transform t, sn_vec3 p)
{
	return sn_inv_rotate(t.q, sn_sub(p, t.p));
}
// a * b: apply b, then a.
static inline sn_transform sn_transform_mul(sn_transform a, sn_transform b)
{
	sn_transform t = { sn_transform_point(a, b.p), sn_quat_mul(a.q, b.q) };
	return t;
}
// a^-1 * b
static inline sn_transform sn_transform_inv_mul(sn_transform a, sn_transform b)
{
	sn_transform t = { sn_inv_rotate(a.q, sn_sub(b.p, a.p)), sn_quat_mul_conj_a(a.q, b.q) };
	return t;
}

#ifdef __cplusplus
}
#endif

#endif
