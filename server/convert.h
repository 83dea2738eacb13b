// Wire values to core values and back. "Absent means the core's default" (proto/sinew.proto) is applied
// here: each function takes the has_ flag of its submessage and the default to use when it is absent.
// Enums whose wire values differ from the core's are mapped; an unknown wire value maps to a value the
// core rejects with INVALID_ARGUMENT, so the core stays the one validator of every number.
#ifndef SINEW_SERVER_CONVERT_H
#define SINEW_SERVER_CONVERT_H

#include "sinew.pb.h"

#include "sinew/sinew.h"

#include <stdbool.h>
#include <stddef.h>

sn_vec3 cv_vec3(bool has, const sinew_v1_Vec3* v, sn_vec3 fallback);
sn_quat cv_quat(bool has, const sinew_v1_Quat* q);
sn_transform cv_transform(bool has, const sinew_v1_Transform* t);
sn_soft cv_soft(bool has, const sinew_v1_Soft* s, sn_soft fallback);
sn_limit cv_limit(bool has, const sinew_v1_Limit* l, sn_limit fallback);
sn_motor cv_motor(bool has, const sinew_v1_Motor* m, sn_motor fallback);
sn_spring cv_spring(bool has, const sinew_v1_Spring* s, sn_spring fallback);
sn_mat33 cv_inertia(bool has, const sinew_v1_Inertia* i, sn_mat33 fallback);

// Apply the present fields of settings onto def. False (with a reason) for an unknown solver.
bool cv_world_settings(const sinew_v1_WorldSettings* settings, sn_world_def* def, char* detail, size_t capacity);
sn_body_def cv_body_def(bool has, const sinew_v1_BodyDef* body);
sn_joint_base cv_joint_base(bool has, const sinew_v1_JointBase* base);

void wv_vec3(sn_vec3 v, sinew_v1_Vec3* out);
void wv_quat(sn_quat q, sinew_v1_Quat* out);
void wv_transform(sn_transform t, sinew_v1_Transform* out);
void wv_world_settings(const sn_world_def* def, sinew_v1_WorldSettings* out);

// Checks the server does before calling core functions that take numbers without validating them
// (forces): false if any component is NaN or infinite.
bool cv_vec3_finite(bool has, const sinew_v1_Vec3* v);

#endif
