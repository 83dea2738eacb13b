// Internal math beyond the inline public set: inverses, definiteness, exponential map, angle wrapping.
#ifndef SINEW_MATHX_H
#define SINEW_MATHX_H

#include "sinew/math.h"

#include <stdbool.h>

// Inverse of a symmetric positive definite 3x3 matrix (by cofactors). The caller checks definiteness.
sn_mat33 mat33_inverse(sn_mat33 m);
double mat33_determinant(sn_mat33 m);
// Symmetric within a relative tolerance and positive definite (Cholesky pivots > 0).
bool mat33_is_spd(sn_mat33 m);
bool mat33_is_finite(sn_mat33 m);
// Skew matrix [v]x so that [v]x u = v x u.
sn_mat33 mat33_skew(sn_vec3 v);
sn_mat33 mat33_add(sn_mat33 a, sn_mat33 b);
sn_mat33 mat33_scale(double s, sn_mat33 m);
// Solve m x = b for a general invertible 3x3 matrix (Cramer). Returns zero if singular.
sn_vec3 mat33_solve(sn_mat33 m, sn_vec3 b);

// Two unit vectors u, v completing unit a to a right-handed orthonormal basis (a, u, v); the same a
// always gives the same u and v.
void vec3_plane_basis(sn_vec3 a, sn_vec3* u, sn_vec3* v);
// Quaternion of the rotation vector v (angle |v| about v/|v|), exact.
sn_quat quat_exp(sn_vec3 rotation_vector);
// Rotation vector of a unit quaternion (shortest: angle in [0, pi]).
sn_vec3 quat_log(sn_quat q);
// Advance orientation q by angular velocity w (world frame) over h: exp(h w) q, normalised.
sn_quat quat_integrate(sn_quat q, sn_vec3 w, double h);
// Unit quaternion of a rotation matrix (Shepperd's method: the largest of w, x, y, z first), w >= 0.
sn_quat quat_from_mat33(sn_mat33 m);

// LDL^T factor of a symmetric positive definite n x n matrix (row-major, n <= 6): unit lower L
// (row-major, n x n) and the reciprocals of D. Returns false if a pivot is not positive relative to the
// largest diagonal entry (dependent rows).
bool ldlt_factor(const double* a, int n, double* l, double* d_inv);
// Solve L D L^T x = b with a factor from ldlt_factor.
void ldlt_solve(const double* l, const double* d_inv, int n, const double* b, double* x);

// Wrap an angle into (-pi, pi].
double wrap_angle(double a);

#endif
