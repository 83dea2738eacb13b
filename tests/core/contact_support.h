// Contact measurements from the public readback (sn_body_get_contacts), shared by the core tests.
#ifndef SINEW_TEST_CONTACT_SUPPORT_H
#define SINEW_TEST_CONTACT_SUPPORT_H

#include "sinew/sinew.h"

// The z force the contacts of a body push it with (N, on the body), summed over its manifolds (the
// first 8: the scenes that use it have fewer).
static inline double contact_force_z(const sn_world* world, sn_body_id body)
{
	sn_contact c[8];
	int n = sn_body_get_contacts(world, body, c, 8);
	double f = 0.0;
	for (int i = 0; i < n && i < 8; ++i)
	{
		double sign = sn_body_id_equals(c[i].body_b, body) ? 1.0 : -1.0;
		for (int k = 0; k < c[i].point_count; ++k)
		{
			f += sign * c[i].points[k].force.z;
		}
	}
	return f;
}

#endif
