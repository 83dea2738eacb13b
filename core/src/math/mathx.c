#include "math/mathx.h"

#include <math.h>

double mat33_determinant(sn_mat33 m)
{
	return sn_dot(m.cx, sn_cross(m.cy, m.cz));
}

sn_mat33 mat33_inverse(sn_mat33 m)
{
	// Rows of the inverse are the cross products of the columns over the determinant.
	double det = mat33_determinant(m);
	double inv_det = det != 0.0 ? 1.0 / det : 0.0;
	sn_vec3 r0 = sn_scale(inv_det, sn_cross(m.cy, m.cz));
	sn_vec3 r1 = sn_scale(inv_det, sn_cross(m.cz, m.cx));
	sn_vec3 r2 = sn_scale(inv_det, sn_cross(m.cx, m.cy));
	sn_mat33 inv = { { r0.x, r1.x, r2.x }, { r0.y, r1.y, r2.y }, { r0.z, r1.z, r2.z } };
	return inv;
}

bool mat33_is_finite(sn_mat33 m)
{
	return sn_vec3_is_finite(m.cx) && sn_vec3_is_finite(m.cy) && sn_vec3_is_finite(m.cz);
}

bool mat33_is_spd(sn_mat33 m)
{
	if (!mat33_is_finite(m))
	{
		return false;
	}
	double scale = fabs(m.cx.x) + fabs(m.cy.y) + fabs(m.cz.z);
	double tol = 1e-9 * scale;
	if (fabs(m.cy.x - m.cx.y) > tol || fabs(m.cz.x - m.cx.z) > tol || fabs(m.cz.y - m.cy.z) > tol)
	{
		return false;
	}
	// Cholesky pivots of the symmetric part.
	double a = m.cx.x, b = m.cy.x, c = m.cz.x, d = m.cy.y, e = m.cz.y, f = m.cz.z;
	if (!(a > 0.0))
	{
		return false;
	}
	double l11 = sqrt(a);
	double l21 = b / l11, l31 = c / l11;
	double p2 = d - l21 * l21;
	if (!(p2 > 0.0))
	{
		return false;
	}
	double l22 = sqrt(p2);
	double l32 = (e - l31 * l21) / l22;
	double p3 = f - l31 * l31 - l32 * l32;
	return p3 > 0.0;
}

sn_mat33 mat33_skew(sn_vec3 v)
{
	sn_mat33 m = { { 0.0, v.z, -v.y }, { -v.z, 0.0, v.x }, { v.y, -v.x, 0.0 } };
	return m;
}

sn_mat33 mat33_add(sn_mat33 a, sn_mat33 b)
{
	sn_mat33 m = { sn_add(a.cx, b.cx), sn_add(a.cy, b.cy), sn_add(a.cz, b.cz) };
	return m;
}

sn_mat33 mat33_scale(double s, sn_mat33 m)
{
	sn_mat33 r = { sn_scale(s, m.cx), sn_scale(s, m.cy), sn_scale(s, m.cz) };
	return r;
}

sn_vec3 mat33_solve(sn_mat33 m, sn_vec3 b)
{
	double det = mat33_determinant(m);
	if (det == 0.0)
	{
		return sn_v3(0.0, 0.0, 0.0);
	}
	double inv_det = 1.0 / det;
	return sn_v3(inv_det * sn_dot(b, sn_cross(m.cy, m.cz)), inv_det * sn_dot(m.cx, sn_cross(b, m.cz)),
				 inv_det * sn_dot(m.cx, sn_cross(m.cy, b)));
}

sn_quat quat_exp(sn_vec3 v)
{
	double angle = sn_length(v);
	// sin(angle/2)/angle, with its series near zero so tiny rotations stay exact to round-off.
	double half = 0.5 * angle;
	double s = angle > 1e-8 ? sin(half) / angle : 0.5 - angle * angle / 48.0;
	sn_quat q = { s * v.x, s * v.y, s * v.z, cos(half) };
	return q;
}

sn_vec3 quat_log(sn_quat q)
{
	if (q.w < 0.0)
	{
		q.x = -q.x;
		q.y = -q.y;
		q.z = -q.z;
		q.w = -q.w;
	}
	double s = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
	double angle = 2.0 * atan2(s, q.w);
	double k = s > 1e-12 ? angle / s : 2.0 / (q.w > 0.0 ? q.w : 1.0);
	return sn_v3(k * q.x, k * q.y, k * q.z);
}

sn_quat quat_integrate(sn_quat q, sn_vec3 w, double h)
{
	return sn_quat_normalize(sn_quat_mul(quat_exp(sn_scale(h, w)), q));
}

sn_quat quat_from_mat33(sn_mat33 m)
{
	// Element (row, column): m.cx is column 0.
	double m00 = m.cx.x, m11 = m.cy.y, m22 = m.cz.z;
	double m01 = m.cy.x, m10 = m.cx.y, m02 = m.cz.x, m20 = m.cx.z, m12 = m.cz.y, m21 = m.cy.z;
	double trace = m00 + m11 + m22;
	sn_quat q;
	if (trace >= m00 && trace >= m11 && trace >= m22)
	{
		double s = 2.0 * sqrt(1.0 + trace);
		q.w = 0.25 * s;
		q.x = (m21 - m12) / s;
		q.y = (m02 - m20) / s;
		q.z = (m10 - m01) / s;
	}
	else if (m00 >= m11 && m00 >= m22)
	{
		double s = 2.0 * sqrt(1.0 + m00 - m11 - m22);
		q.w = (m21 - m12) / s;
		q.x = 0.25 * s;
		q.y = (m01 + m10) / s;
		q.z = (m02 + m20) / s;
	}
	else if (m11 >= m22)
	{
		double s = 2.0 * sqrt(1.0 + m11 - m00 - m22);
		q.w = (m02 - m20) / s;
		q.x = (m01 + m10) / s;
		q.y = 0.25 * s;
		q.z = (m12 + m21) / s;
	}
	else
	{
		double s = 2.0 * sqrt(1.0 + m22 - m00 - m11);
		q.w = (m10 - m01) / s;
		q.x = (m02 + m20) / s;
		q.y = (m12 + m21) / s;
		q.z = 0.25 * s;
	}
	if (q.w < 0.0)
	{
		q.x = -q.x;
		q.y = -q.y;
		q.z = -q.z;
		q.w = -q.w;
	}
	return sn_quat_normalize(q);
}

double wrap_angle(double a)
{
	if (a > -SN_PI && a <= SN_PI)
	{
		return a;
	}
	a = fmod(a + SN_PI, 2.0 * SN_PI);
	if (a <= 0.0)
	{
		a += 2.0 * SN_PI;
	}
	return a - SN_PI;
}

bool ldlt_factor(const double* a, int n, double* l, double* d_inv)
{
	double max_diag = 0.0;
	for (int i = 0; i < n; ++i)
	{
		max_diag = fmax(max_diag, a[i * n + i]);
	}
	double eps = 1e-12 * max_diag;
	double d[6];
	for (int j = 0; j < n; ++j)
	{
		double dj = a[j * n + j];
		for (int k = 0; k < j; ++k)
		{
			dj -= l[j * n + k] * l[j * n + k] * d[k];
		}
		if (!(dj > eps))
		{
			return false;
		}
		d[j] = dj;
		d_inv[j] = 1.0 / dj;
		l[j * n + j] = 1.0;
		for (int i = j + 1; i < n; ++i)
		{
			double s = a[i * n + j];
			for (int k = 0; k < j; ++k)
			{
				s -= l[i * n + k] * l[j * n + k] * d[k];
			}
			l[i * n + j] = s * d_inv[j];
			l[j * n + i] = 0.0;
		}
	}
	return true;
}

void ldlt_solve(const double* l, const double* d_inv, int n, const double* b, double* x)
{
	double y[6];
	for (int i = 0; i < n; ++i)
	{
		double s = b[i];
		for (int k = 0; k < i; ++k)
		{
			s -= l[i * n + k] * y[k];
		}
		y[i] = s;
	}
	for (int i = 0; i < n; ++i)
	{
		y[i] *= d_inv[i];
	}
	for (int i = n - 1; i >= 0; --i)
	{
		double s = y[i];
		for (int k = i + 1; k < n; ++k)
		{
			s -= l[k * n + i] * x[k];
		}
		x[i] = s;
	}
}

void vec3_plane_basis(sn_vec3 a, sn_vec3* u, sn_vec3* v)
{
	sn_vec3 t = fabs(a.x) < 0.57735 ? sn_v3(1, 0, 0) : (fabs(a.y) < 0.57735 ? sn_v3(0, 1, 0) : sn_v3(0, 0, 1));
	*u = sn_normalize(sn_cross(a, t));
	*v = sn_cross(a, *u);
}
