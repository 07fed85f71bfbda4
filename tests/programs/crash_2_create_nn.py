"""crash_2_create_nn: the code cells of apache/mxnet docs/python_docs/python/tutorials/getting-started/crash-course/2-create-nn.md
(commit b84609d3fc73, Apache License 2.0), in order, for tests/programs/cells.py.

Changed: import lines (``mxnet`` -> ``xprof.runtime``).
"""

# %% [1]
from xprof.runtime import np, npx
from xprof.runtime.gluon import nn
npx.set_np()  # Change MXNet to the numpy-like mode.


# %% [2]
layer = nn.Dense(5)
layer
# output: Dense(-1 -> 5, linear)


# %% [3]
layer = nn.Dense(5,in_units=3)
layer


# %% [4]
layer = nn.Dense(5, in_units=3,activation='relu')


# %% [5]
layer.initialize()


# %% [6]
x = np.random.uniform(-1,1,(10,3))
layer(x)


# %% [7]
layer.params


# %% [8]
layer.weight.data()


# %% [9]
net = nn.Sequential()

net.add(nn.Dense(5,in_units=3,activation='relu'),
        nn.Dense(25, activation='relu'), nn.Dense(2))
net


# %% [10]
net[1]


# %% [11]
class Net(nn.Block):
    def __init__(self):
        super().__init__()
    def forward(self, x):
        return x


# %% [12]
class MLP(nn.Block):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(5,activation='relu')
        self.dense2 = nn.Dense(25,activation='relu')
        self.dense3 = nn.Dense(2)

    def forward(self, x):
        layer1 = self.dense1(x)
        layer2 = self.dense2(layer1)
        layer3 = self.dense3(layer2)
        return layer3

net = MLP()
net


# %% [13]
net.dense1.params


# %% [14]
from xprof.runtime.gluon import Parameter

weight = Parameter("custom_parameter_weight",shape=(5,-1))
bias = Parameter("custom_parameter_bias",shape=(5,-1))

weight,bias


# %% [15]
class custom_layer(nn.Block):
   def __init__(self, out_units, in_units=0):
       super().__init__()
       self.weight = Parameter("weight", shape=(in_units,out_units), allow_deferred_init=True)
       self.bias = Parameter("bias", shape=(out_units,), allow_deferred_init=True)
   def forward(self, x):
       return np.dot(x, self.weight.data()) + self.bias.data()


# %% [16]
dense = custom_layer(3,in_units=5)
dense.initialize()
dense(np.random.uniform(size=(4, 5)))


# %% [17]
class LeNet(nn.Block):
   def __init__(self):
       super().__init__()
       self.conv1 = nn.Conv2D(channels=6, kernel_size=3, activation='relu')
       self.pool1 = nn.MaxPool2D(pool_size=2, strides=2)
       self.conv2 = nn.Conv2D(channels=16, kernel_size=3, activation='relu')
       self.pool2 = nn.MaxPool2D(pool_size=2, strides=2)
       self.dense1 = nn.Dense(120, activation="relu")
       self.dense2 = nn.Dense(84, activation="relu")
       self.dense3 = nn.Dense(10)
   def forward(self, x):
       x = self.conv1(x)
       x = self.pool1(x)
       x = self.conv2(x)
       x = self.pool2(x)
       x = self.dense1(x)
       x = self.dense2(x)
       x = self.dense3(x)
       return x

lenet = LeNet()


# %% [18]
class LeNet_custom(nn.Block):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(channels=6, kernel_size=3, activation='relu')
        self.pool1 = nn.MaxPool2D(pool_size=2, strides=2)
        self.conv2 = nn.Conv2D(channels=16, kernel_size=3, activation='relu')
        self.pool2 = nn.MaxPool2D(pool_size=2, strides=2)
        self.dense1 = nn.Dense(120, activation="relu")
        self.dense2 = nn.Dense(84, activation="relu")
        self.dense3 = custom_layer(10,84)
    def forward(self, x):
        x = self.conv1(x)
        x = self.pool1(x)
        x = self.conv2(x)
        x = self.pool2(x)
        x = self.dense1(x)
        x = self.dense2(x)
        x = self.dense3(x)
        return x

lenet_custom = LeNet_custom()


# %% [19]
image_data = np.random.uniform(-1,1, (1,1,28,28))

lenet.initialize()
lenet_custom.initialize()

print("Lenet:")
print(lenet(image_data))

print("Custom Lenet:")
print(lenet_custom(image_data))


# %% [20]
lenet.conv1.weight.data().shape, lenet.dense1.bias.data().shape


# %% [21]
from xprof.runtime.gluon import model_zoo

net = model_zoo.vision.resnet50_v2(pretrained=True)
net.hybridize()

dummy_input = np.ones(shape=(1,3,224,224))
output = net(dummy_input)
output.shape


# %% [22]
net_hybrid_seq = nn.HybridSequential()

net_hybrid_seq.add(nn.Dense(5,in_units=3,activation='relu'),
 nn.Dense(25, activation='relu'), nn.Dense(2) )
net_hybrid_seq


# %% [23]
net_hybrid_seq.hybridize()


# %% [24]
class CustomLayer(nn.HybridBlock):
    def __init__(self, out_units, in_units=-1):
        super().__init__()
        self.weight = Parameter("weight", shape=(in_units, out_units), allow_deferred_init=True)
        self.bias = Parameter("bias", shape=(out_units,), allow_deferred_init=True)

    def forward(self, x):
        print(self.weight.shape, self.bias.shape)
        return np.dot(x, self.weight.data()) + self.bias.data()

    def infer_shape(self, x):
        print(self.weight.shape,x.shape)
        self.weight.shape = (x.shape[-1],self.weight.shape[1])
        dense = CustomLayer(3)

dense.initialize()
dense(np.random.uniform(size=(4, 5)))


# %% [25]
from time import time

def benchmark(net, x):
    y = net(x)
    start = time()
    for i in range(1,1000):
        y = net(x)
    return time() - start

x_bench = np.random.normal(size=(1,512))

net_hybrid_seq = nn.HybridSequential()

net_hybrid_seq.add(nn.Dense(256,activation='relu'),
                   nn.Dense(128, activation='relu'),
                   nn.Dense(2))
net_hybrid_seq.initialize()

print('Before hybridizing: %.4f sec'%(benchmark(net_hybrid_seq, x_bench)))
net_hybrid_seq.hybridize()
print('After hybridizing: %.4f sec'%(benchmark(net_hybrid_seq, x_bench)))


# %% [26]
from xprof.runtime.gluon import HybridBlock

class MLP_Hybrid(HybridBlock):
    def __init__(self):
        super().__init__()
        self.dense1 = nn.Dense(256,activation='relu')
        self.dense2 = nn.Dense(128,activation='relu')
        self.dense3 = nn.Dense(2)
    def forward(self, x):
        layer1 = self.dense1(x)
        layer2 = self.dense2(layer1)
        layer3 = self.dense3(layer2)
        return layer3

net_hybrid = MLP_Hybrid()
net_hybrid.initialize()

print('Before hybridizing: %.4f sec'%(benchmark(net_hybrid, x_bench)))
net_hybrid.hybridize()
print('After hybridizing: %.4f sec'%(benchmark(net_hybrid, x_bench)))


# %% [27]
file_name = 'layer.params'
layer.save_parameters(file_name)


# %% [28]
def build_model():
    layer = nn.Dense(5, in_units=3,activation='relu')
    return layer

layer_new = build_model()


# %% [29]
layer_new.load_parameters('layer.params')


# %% [30]
net_hybrid.export('MLP_hybrid')


# %% [31]
net_hybrid.export('MLP_hybrid')


# %% [32]
import warnings
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    net_loaded = nn.SymbolBlock.imports("MLP_hybrid-symbol.json",
                                        ['data'], "MLP_hybrid-0000.params",
                                        device=None)


# %% [33]
net_loaded(x_bench)


# %% [34]
layer.summary(x)


# %% [35]
lenet.summary(image_data)


# %% [36]
net_hybrid_summary = MLP_Hybrid()

net_hybrid_summary.initialize()

net_hybrid_summary.summary(x_bench)

net_hybrid_summary.hybridize()
