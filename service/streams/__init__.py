"""Frames, from a job's Redis stream to a client: one hub reading every stream
the process waits on, the relay to one client and its pacing, stopping every
playback of a job, marking the jobs being watched, and Step's positions."""
