package live

// APIError is apiError, for the tests.
var APIError = apiError
