// Controller inputs (see control.h): drive targets and forces, checked whole, then set.
#include "control.h"

#include "convert.h"

#include "sinew/articulation.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static int32_t fail(char* detail, size_t capacity, int32_t code, const char* format, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 4, 5)))
#endif
	;

static int32_t fail(char* detail, size_t capacity, int32_t code, const char* format, ...)
{
	va_list args;
	va_start(args, format);
	vsnprintf(detail, capacity, format, args);
	va_end(args);
	return code;
}

// ---- drive targets --------------------------------------------------------------------------------------

// Entries a repeated field of a decoded message holds at most (nanopb's fixed arrays, sinew.options).
#define CAPACITY(type, field) (sizeof(((type*)0)->field) / sizeof(((type*)0)->field[0]))

// A SetDriveTargets as the core's batch calls take it.
typedef struct targets
{
	sn_joint_target joints[CAPACITY(sinew_v1_SetDriveTargets, joints)];
	int joint_count;
	bool has_articulation;
	sn_articulation_id articulation;
	int dofs[CAPACITY(sinew_v1_ArticulationTargets, dofs)];
	const double* positions;
	const double* velocities; // NULL: the targets keep their velocities
	int dof_count;
} targets;

// Read the message; fails only on its shape (the articulation's lists of different lengths).
static int32_t read_targets(const sinew_v1_SetDriveTargets* t, targets* out, char* detail, size_t capacity)
{
	out->joint_count = (int)t->joints_count;
	for (pb_size_t i = 0; i < t->joints_count; ++i)
	{
		const sinew_v1_JointTarget* jt = t->joints + i;
		out->joints[i] = (sn_joint_target){ sn_joint_id_load(jt->joint_id), (sn_axis)jt->axis, jt->target,
											jt->has_motor_speed, jt->motor_speed };
	}
	out->has_articulation = t->has_articulation;
	if (!t->has_articulation)
	{
		return 0;
	}
	const sinew_v1_ArticulationTargets* a = &t->articulation;
	if (a->positions_count != a->dofs_count || (a->velocities_count != 0 && a->velocities_count != a->dofs_count))
	{
		return fail(detail, capacity, SN_ERR_INVALID_ARGUMENT,
					"articulation targets: dofs, positions and velocities must have one length "
					"(velocities may be empty)");
	}
	out->articulation = sn_articulation_id_load(a->articulation_id);
	for (pb_size_t i = 0; i < a->dofs_count; ++i)
	{
		out->dofs[i] = a->dofs[i] > (uint32_t)INT32_MAX ? -1 : (int)a->dofs[i];
	}
	out->positions = a->positions;
	out->velocities = a->velocities_count > 0 ? a->velocities : NULL;
	out->dof_count = (int)a->dofs_count;
	return 0;
}

int32_t control_check_targets(sn_world* world, const sinew_v1_SetDriveTargets* t, char* detail, size_t capacity)
{
	targets in;
	int32_t code = read_targets(t, &in, detail, capacity);
	if (code != 0)
	{
		return code;
	}
	sn_error err = sn_world_check_joint_targets(world, in.joints, in.joint_count);
	if (err != SN_ERR_OK)
	{
		return fail(detail, capacity, err, "%s", sn_world_last_error_detail(world));
	}
	if (in.has_articulation)
	{
		err = sn_articulation_check_drive_targets(world, in.articulation, in.dofs, in.positions, in.velocities,
												  in.dof_count);
		if (err != SN_ERR_OK)
		{
			return fail(detail, capacity, err, "articulation targets: %s", sn_world_last_error_detail(world));
		}
	}
	return 0;
}

int32_t control_set_targets(sn_world* world, const sinew_v1_SetDriveTargets* t, char* detail, size_t capacity)
{
	targets in;
	int32_t code = read_targets(t, &in, detail, capacity);
	if (code != 0)
	{
		return code;
	}
	sn_error err = sn_world_set_joint_targets(world, in.joints, in.joint_count);
	if (err != SN_ERR_OK)
	{
		return fail(detail, capacity, err, "%s", sn_world_last_error_detail(world));
	}
	if (in.has_articulation)
	{
		err = sn_articulation_set_drive_targets(world, in.articulation, in.dofs, in.positions, in.velocities,
												in.dof_count);
		if (err != SN_ERR_OK)
		{
			return fail(detail, capacity, err, "articulation targets: %s", sn_world_last_error_detail(world));
		}
	}
	return 0;
}

// ---- forces ---------------------------------------------------------------------------------------------

// Forces accumulate, so they are checked whole first (ids live, links and dofs in range, numbers finite);
// applying them then cannot fail.
int32_t control_check_forces(const sn_world* world, const sinew_v1_ApplyForces* f, char* detail, size_t capacity)
{
	for (pb_size_t i = 0; i < f->bodies_count; ++i)
	{
		const sinew_v1_BodyForce* b = f->bodies + i;
		if (!sn_body_is_valid(world, sn_body_id_load(b->body_id)))
		{
			return fail(detail, capacity, SN_ERR_INVALID_ID, "bodies[%u]: body %llu does not exist", (unsigned)i,
						(unsigned long long)b->body_id);
		}
		if (!cv_vec3_finite(b->has_force, &b->force) || !cv_vec3_finite(b->has_point, &b->point) ||
			!cv_vec3_finite(b->has_torque, &b->torque))
		{
			return fail(detail, capacity, SN_ERR_NOT_FINITE, "bodies[%u]: force, point and torque must be finite",
						(unsigned)i);
		}
	}
	if (f->links_count > 0 || f->dofs_count > 0)
	{
		for (pb_size_t i = 0; i < f->links_count; ++i)
		{
			const sinew_v1_LinkForce* l = f->links + i;
			sn_articulation_id aid = sn_articulation_id_load(l->articulation_id);
			if (!sn_articulation_is_valid(world, aid))
			{
				return fail(detail, capacity, SN_ERR_INVALID_ID, "links[%u]: articulation %llu does not exist",
							(unsigned)i, (unsigned long long)l->articulation_id);
			}
			if (l->link >= (uint32_t)sn_articulation_get_link_count(world, aid))
			{
				return fail(detail, capacity, SN_ERR_INVALID_ARGUMENT, "links[%u]: link %u is out of range",
							(unsigned)i, (unsigned)l->link);
			}
			if (!cv_vec3_finite(l->has_force, &l->force) || !cv_vec3_finite(l->has_point, &l->point) ||
				!cv_vec3_finite(l->has_torque, &l->torque))
			{
				return fail(detail, capacity, SN_ERR_NOT_FINITE, "links[%u]: force, point and torque must be finite",
							(unsigned)i);
			}
		}
		for (pb_size_t i = 0; i < f->dofs_count; ++i)
		{
			const sinew_v1_DofForce* d = f->dofs + i;
			sn_articulation_id aid = sn_articulation_id_load(d->articulation_id);
			if (!sn_articulation_is_valid(world, aid))
			{
				return fail(detail, capacity, SN_ERR_INVALID_ID, "dofs[%u]: articulation %llu does not exist",
							(unsigned)i, (unsigned long long)d->articulation_id);
			}
			if (d->dof >= (uint32_t)sn_articulation_get_dof_count(world, aid))
			{
				return fail(detail, capacity, SN_ERR_INVALID_ARGUMENT, "dofs[%u]: dof %u is out of range", (unsigned)i,
							(unsigned)d->dof);
			}
			if (!isfinite(d->force))
			{
				return fail(detail, capacity, SN_ERR_NOT_FINITE, "dofs[%u]: force must be finite", (unsigned)i);
			}
		}
	}
	return 0;
}

void control_apply_forces(sn_world* world, const sinew_v1_ApplyForces* f)
{
	for (pb_size_t i = 0; i < f->bodies_count; ++i)
	{
		const sinew_v1_BodyForce* b = f->bodies + i;
		sn_body_id id = sn_body_id_load(b->body_id);
		if (b->has_force)
		{
			sn_vec3 force = cv_vec3(true, &b->force, sn_v3(0, 0, 0));
			if (b->has_point)
			{
				sn_body_apply_force(world, id, force, cv_vec3(true, &b->point, sn_v3(0, 0, 0)));
			}
			else
			{
				sn_body_apply_force_at_center(world, id, force);
			}
		}
		if (b->has_torque)
		{
			sn_body_apply_torque(world, id, cv_vec3(true, &b->torque, sn_v3(0, 0, 0)));
		}
	}
	for (pb_size_t i = 0; i < f->links_count; ++i)
	{
		const sinew_v1_LinkForce* l = f->links + i;
		sn_articulation_id aid = sn_articulation_id_load(l->articulation_id);
		if (l->has_force)
		{
			sn_vec3 point = l->has_point ? cv_vec3(true, &l->point, sn_v3(0, 0, 0))
										 : sn_articulation_get_link_pose(world, aid, (int)l->link).p;
			sn_articulation_apply_link_force(world, aid, (int)l->link, cv_vec3(true, &l->force, sn_v3(0, 0, 0)), point);
		}
		if (l->has_torque)
		{
			sn_articulation_apply_link_torque(world, aid, (int)l->link, cv_vec3(true, &l->torque, sn_v3(0, 0, 0)));
		}
	}
	for (pb_size_t i = 0; i < f->dofs_count; ++i)
	{
		const sinew_v1_DofForce* d = f->dofs + i;
		sn_articulation_apply_joint_force(world, sn_articulation_id_load(d->articulation_id), (int)d->dof, d->force);
	}
}
