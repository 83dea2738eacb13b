// Controller inputs (see control.h): drive targets and forces, shared by SetDriveTargets, ApplyForces
// and lockstep ticks.
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

// Joint targets: set one by one, and on the first failure put back the ones already set, so the command
// changes all or nothing. Articulation targets go through the core's own all-or-nothing call.
int32_t control_set_targets(sn_world* world, const sinew_v1_SetDriveTargets* t, bool dry_run, char* detail,
							size_t capacity)
{
	typedef struct saved
	{
		double target;
		double speed;
	} saved;
	saved old[sizeof(t->joints) / sizeof(t->joints[0])];
	pb_size_t done = 0;
	sn_error err = SN_ERR_OK;
	for (; done < t->joints_count; ++done)
	{
		const sinew_v1_JointTarget* jt = t->joints + done;
		sn_joint_id id = sn_joint_id_load(jt->joint_id);
		sn_axis axis = (sn_axis)jt->axis;
		old[done].target = sn_joint_get_spring(world, id, axis).target;
		old[done].speed = sn_joint_get_motor(world, id, axis).speed;
		err = sn_joint_set_drive_target(world, id, axis, jt->target);
		if (err == SN_ERR_OK && jt->has_motor_speed)
		{
			err = sn_joint_set_motor_speed(world, id, axis, jt->motor_speed);
			if (err != SN_ERR_OK)
			{
				sn_joint_set_drive_target(world, id, axis, old[done].target);
			}
		}
		if (err != SN_ERR_OK)
		{
			fail(detail, capacity, err, "joints[%u]: %s", (unsigned)done, sn_world_last_error_detail(world));
			break;
		}
	}
	if (err == SN_ERR_OK && t->has_articulation)
	{
		const sinew_v1_ArticulationTargets* a = &t->articulation;
		if (a->positions_count != a->dofs_count || (a->velocities_count != 0 && a->velocities_count != a->dofs_count))
		{
			err = SN_ERR_INVALID_ARGUMENT;
			fail(detail, capacity, err,
				 "articulation targets: dofs, positions and velocities must have one length "
				 "(velocities may be empty)");
		}
		else
		{
			int dofs[sizeof(a->dofs) / sizeof(a->dofs[0])];
			for (pb_size_t i = 0; i < a->dofs_count; ++i)
			{
				dofs[i] = a->dofs[i] > (uint32_t)INT32_MAX ? -1 : (int)a->dofs[i];
			}
			sn_articulation_id aid = sn_articulation_id_load(a->articulation_id);
			if (dry_run)
			{
				// Validate by setting the current targets' own values back after a trial.
				double old_pos[sizeof(a->dofs) / sizeof(a->dofs[0])];
				double old_vel[sizeof(a->dofs) / sizeof(a->dofs[0])];
				for (pb_size_t i = 0; i < a->dofs_count; ++i)
				{
					sn_drive d = sn_articulation_get_drive(world, aid, dofs[i]);
					old_pos[i] = d.target_position;
					old_vel[i] = d.target_velocity;
				}
				err = sn_articulation_set_drive_targets(
					world, aid, dofs, a->positions, a->velocities_count > 0 ? a->velocities : NULL, (int)a->dofs_count);
				if (err == SN_ERR_OK)
				{
					sn_articulation_set_drive_targets(world, aid, dofs, old_pos, old_vel, (int)a->dofs_count);
				}
			}
			else
			{
				err = sn_articulation_set_drive_targets(
					world, aid, dofs, a->positions, a->velocities_count > 0 ? a->velocities : NULL, (int)a->dofs_count);
			}
			if (err != SN_ERR_OK)
			{
				fail(detail, capacity, err, "articulation targets: %s", sn_world_last_error_detail(world));
			}
		}
	}
	if (err != SN_ERR_OK || dry_run)
	{
		// Put back what was set, newest first.
		pb_size_t n = err != SN_ERR_OK && done < t->joints_count ? done : t->joints_count;
		for (pb_size_t k = n; k-- > 0;)
		{
			const sinew_v1_JointTarget* jt = t->joints + k;
			sn_joint_id id = sn_joint_id_load(jt->joint_id);
			sn_joint_set_drive_target(world, id, (sn_axis)jt->axis, old[k].target);
			if (jt->has_motor_speed)
			{
				sn_joint_set_motor_speed(world, id, (sn_axis)jt->axis, old[k].speed);
			}
		}
	}
	return (int32_t)err;
}

// Forces accumulate, so they are validated whole first (ids live, numbers finite) and then applied,
// which cannot fail.
int32_t control_apply_forces(sn_world* world, const sinew_v1_ApplyForces* f, bool dry_run, char* detail,
							 size_t capacity)
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
	if (dry_run)
	{
		return 0;
	}
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
	return 0;
}
