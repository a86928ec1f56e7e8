import 'reflect-metadata';

// Servers started in-process by tests log nothing (request lines would drown the test output).
process.env.CHAINFLOW_LOG_LEVEL ??= 'silent';
