// `sinew sim`: run a URDF model on the embedded core, without a server, and write joint positions as CSV.
#ifndef SINEW_CLIENT_SIM_H
#define SINEW_CLIENT_SIM_H

// argv[0] is the command's own name ("sim"); options follow. Returns the process exit status: 0 on
// success, 1 when the model cannot be loaded or built or the simulation fails, 2 on a bad option.
int sinew_sim_main(int argc, char** argv);

#endif
