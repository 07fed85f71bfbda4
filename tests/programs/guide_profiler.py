"""guide_profiler: the code cells of apache/mxnet docs/python_docs/python/tutorials/performance/backend/profiler.md
(commit b84609d3fc73, Apache License 2.0), in order, for tests/programs/cells.py.

Changed: import lines (``mxnet`` -> ``xprof.runtime``) and the import of ``nd`` the page
forgets (cell 10). MNIST is read from local files (``cells.py --mnist``).
"""

# %% [1]
from time import time
from xprof.runtime import autograd, np
import xprof.runtime as mx

start = time()
x = np.random.uniform(size=(2000,2000))
y = np.dot(x, x)
print('Time for matrix multiplication: %f sec\n' % (time() - start))

start = time()                                
y_np = y.asnumpy()                             
print('Time for converting to numpy: %f sec' % (time() - start))


# %% [2]
from xprof.runtime import profiler

profiler.set_config(profile_all=True,
                    aggregate_stats=True,
                    continuous_dump=True,
                    filename='profile_output.json')


# %% [3]
from xprof.runtime import gluon

net = gluon.nn.HybridSequential()
net.add(gluon.nn.Conv2D(channels=20, kernel_size=5, activation='relu'))
net.add(gluon.nn.MaxPool2D(pool_size=2, strides=2))
net.add(gluon.nn.Conv2D(channels=50, kernel_size=5, activation='relu'))
net.add(gluon.nn.MaxPool2D(pool_size=2, strides=2))
net.add(gluon.nn.Flatten())
net.add(gluon.nn.Dense(512, activation="relu"))
net.add(gluon.nn.Dense(10))


# %% [4]
from xprof.runtime.gluon.data.vision import transforms

dataset = gluon.data.vision.MNIST(train=True)
dataset = dataset.transform_first(transforms.ToTensor())
dataloader = gluon.data.DataLoader(dataset, batch_size=64, shuffle=True)


# %% [5]
# Use GPU if available
if mx.device.num_gpus():
    device=mx.gpu()
else:
    device=mx.cpu()

# Initialize the parameters with random weights
net.initialize(mx.init.Xavier(), device=device)

# Use SGD optimizer
trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})

# Softmax Cross Entropy is a frequently used loss function for multi-class classification
softmax_cross_entropy = gluon.loss.SoftmaxCrossEntropyLoss()

# A helper function to run one training iteration
def run_training_iteration(data, label):
    # Load data and label is the right device
    data = data.to_device(device)
    label = label.to_device(device)
    # Run the forward pass
    with autograd.record():
        output = net(data)
        loss = softmax_cross_entropy(output, label)
    # Run the backward pass
    loss.backward()
    # Apply changes to parameters
    trainer.step(data.shape[0])


# %% [6]
# Run the first iteration without profiling
itr = iter(dataloader)
run_training_iteration(*next(itr))


# %% [7]
data, label = next(itr)

# Ask the profiler to start recording
profiler.set_state('run')

run_training_iteration(*next(itr))

# Make sure all operations have completed
mx.npx.waitall()
# Ask the profiler to stop recording
profiler.set_state('stop')
# Dump all results to log file before download
profiler.dump()


# %% [8]
profiler.set_state('run')
profiler.set_state('stop')
print(profiler.dumps())


# %% [9]
profiler.dump(finished=False)


# %% [10]
from xprof.runtime import nd  # the page uses nd without importing it
class MyAddOne(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):  
        self.assign(out_data[0], req[0], in_data[0]+1)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])

@mx.operator.register('MyAddOne')
class CustomAddOneProp(mx.operator.CustomOpProp):
    def __init__(self):
        super(CustomAddOneProp, self).__init__(need_top_grad=True)

    def list_arguments(self):
        return ['data']

    def list_outputs(self):
        return ['output']

    def infer_shape(self, in_shape):
        return [in_shape[0]], [in_shape[0]], []

    def create_operator(self, device, shapes, dtypes):
        return MyAddOne()


inp = mx.np.zeros(shape=(500, 500))

profiler.set_config(profile_all=True, continuous_dump=True, \
                    aggregate_stats=True)
profiler.set_state('run')

w = nd.Custom(inp, op_type="MyAddOne")

mx.npx.waitall()

profiler.set_state('stop')
print(profiler.dumps())
profiler.dump(finished=False)


# %% [11]
# Set profile_all to True
profiler.set_config(profile_all=True, aggregate_stats=True, continuous_dump=True)
# OR, Explicitly Set profile_symbolic and profile_imperative to True
profiler.set_config(profile_symbolic=True, profile_imperative=True, \
                    aggregate_stats=True, continuous_dump=True)

profiler.set_state('run')
# Use Symbolic Mode
a = mx.symbol.Variable('a')
b = mx.symbol.Custom(data=a, op_type='MyAddOne')
c = b.bind(mx.cpu(), {'a': inp})
y = c.forward()
mx.npx.waitall()
profiler.set_state('stop')
print(profiler.dumps())
profiler.dump()
